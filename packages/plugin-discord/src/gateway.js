// @ts-check
/**
 * One Discord Gateway session (discord-api-docs `developers/events/gateway.mdx`), kept alive
 * across dropped connections until the channel stops:
 * - Hello (op 10) → heartbeat (op 1) every `heartbeat_interval`, the first after a random part
 *   of it (jitter); a heartbeat whose ack (op 11) has not come when the next is due means a
 *   zombied connection: it is closed (not with 1000/1001, which would end the session) and resumed.
 * - Identify (op 2) with the intents, once; READY's `session_id` and `resume_gateway_url` let a
 *   new connection Resume (op 6) with the last sequence number, and Discord replays what was missed.
 * - Reconnect (op 7) and resumable close codes → resume; Invalid Session (op 9) → resume when
 *   `d` is true, else identify again on a new connection after 1–5 s.
 * - Close codes Discord documents as final (4004 authentication failed, 4010–4014) end the run
 *   with the reason; Aide shows it and restarts the channel with its long backoff, so a bad
 *   token does not spin.
 */
/** @import { ChannelWebSocket } from "@aide/plugin" */
import { sleep } from "./rest.js"

export const INTENTS = { GUILD_MESSAGES: 1 << 9, DIRECT_MESSAGES: 1 << 12, MESSAGE_CONTENT: 1 << 15 }

/** Close codes after which reconnecting cannot help (discord-api-docs `opcodes-and-status-codes.mdx`). */
const FATAL = new Map([
  [4004, "Discord refused the bot token (4004 Authentication failed): check botToken"],
  [4010, "Discord refused the shard (4010 Invalid shard)"],
  [4011, "Discord requires sharding for this bot (4011 Sharding required)"],
  [4012, "Discord refused the Gateway version (4012 Invalid API version)"],
  [4013, "Discord refused the intents (4013 Invalid intent(s))"],
  [
    4014,
    "Discord refused the intents (4014 Disallowed intent(s)): enable them for the bot in the Developer Portal (Bot → Privileged Gateway Intents)",
  ],
])
/** Close codes after which the session is gone: identify again. */
const NEW_SESSION = new Set([4007, 4009])
/** A Gateway message larger than this is dropped (READY of a bot in many guilds is the largest). */
const MAX_FRAME = 8 * 1024 * 1024

/**
 * @typedef {ChannelWebSocket} Socket the WHATWG-style socket of `context.webSocket`
 */

/**
 * @typedef {object} Timing
 * @property {() => number} random in [0, 1): heartbeat jitter and waits
 * @property {(attempt: number) => number} reconnectDelay ms before reconnect number `attempt` (0 first)
 * @property {() => number} invalidSessionDelay ms before identifying again after op 9 `false`
 */

/** @type {Timing} */
export const defaultTiming = {
  random: Math.random,
  // The first reconnect is at once (Discord asks to resume promptly); then 1 s doubling to 60 s, with jitter.
  reconnectDelay: (attempt) =>
    attempt === 0 ? 0 : Math.min(60_000, 1000 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2),
  invalidSessionDelay: () => 1000 + Math.random() * 4000,
}

/**
 * @typedef {object} GatewayOptions
 * @property {string} token
 * @property {number} intents
 * @property {() => Promise<string>} gatewayUrl `GET /gateway/bot`'s url
 * @property {(url: string) => Socket} connect
 * @property {(type: string, data: any) => Promise<void>} dispatch one event (READY and RESUMED excepted)
 * @property {(user: { id: string }) => void} onReady
 * @property {(message: string, data?: unknown) => void} log
 * @property {AbortSignal} signal
 * @property {Timing} [timing]
 */

/**
 * @typedef {{ kind: "stopped" } | { kind: "fatal", reason: string } | { kind: "resume", healthy: boolean } | { kind: "identify", delay: number, healthy: boolean }} Outcome
 */

/**
 * Runs until the signal aborts (resolves) or Discord closes with a final code (rejects with why).
 * @param {GatewayOptions} options
 */
export const runGateway = async (options) => {
  const timing = options.timing ?? defaultTiming
  /** @type {{ session: { sessionId: string, resumeUrl: string } | null, seq: number | null }} */
  const state = { session: null, seq: null }
  /** @type {string | null} */
  let gatewayUrl = null
  let failures = 0
  let wait = 0
  while (!options.signal.aborted) {
    if (wait > 0) await sleep(wait, options.signal).catch(() => undefined)
    if (options.signal.aborted) return
    const session = state.session
    const resuming = session !== null
    let base
    if (session !== null) base = session.resumeUrl
    else {
      gatewayUrl ??= await options.gatewayUrl()
      base = gatewayUrl
    }
    const outcome = await connectOnce(options, timing, base, session, state.seq, (next) => {
      if (next.session !== undefined) state.session = next.session
      if (next.seq !== undefined) state.seq = next.seq
    })
    if (outcome.kind === "stopped") return
    if (outcome.kind === "fatal") throw new Error(outcome.reason)
    failures = outcome.healthy ? 0 : failures + 1
    if (outcome.kind === "identify") {
      state.session = null
      state.seq = null
      wait = outcome.delay
    } else wait = timing.reconnectDelay(failures)
    options.log("discord: the Gateway connection ended; reconnecting", {
      resume: outcome.kind === "resume",
      wasResuming: resuming,
    })
  }
}

/** @param {string} base */
const withQuery = (base) => {
  const url = new URL(base)
  url.searchParams.set("v", "10")
  url.searchParams.set("encoding", "json")
  return url.toString()
}

/**
 * One connection, from open to close.
 * @param {GatewayOptions} options
 * @param {Timing} timing
 * @param {string} base
 * @param {{ sessionId: string, resumeUrl: string } | null} session
 * @param {number | null} startSeq
 * @param {(next: { session?: { sessionId: string, resumeUrl: string }, seq?: number | null }) => void} remember
 * @returns {Promise<Outcome>}
 */
const connectOnce = (options, timing, base, session, startSeq, remember) =>
  new Promise((resolve) => {
    let seq = startSeq
    let healthy = false
    /** @type {Outcome | null} what we decided before closing ourselves */
    let decided = null
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let beat
    let acked = true
    let queue = Promise.resolve()
    const socket = options.connect(withQuery(base))
    /** @param {unknown} payload */
    const send = (payload) => {
      if (socket.readyState === 1) socket.send(JSON.stringify(payload))
    }
    /** @param {Outcome} outcome @param {number} code */
    const closeWith = (outcome, code) => {
      decided ??= outcome
      try {
        socket.close(code)
      } catch {
        finish()
      }
    }
    const heartbeat = () => send({ op: 1, d: seq })
    /** @param {number} interval @param {number} delay */
    const schedule = (interval, delay) => {
      beat = setTimeout(() => {
        if (!acked) {
          options.log("discord: no heartbeat ack; the connection is a zombie, resuming")
          closeWith({ kind: "resume", healthy }, 4000)
          return
        }
        acked = false
        heartbeat()
        schedule(interval, interval)
      }, delay)
    }
    const onAbort = () => closeWith({ kind: "stopped" }, 1000)
    options.signal.addEventListener("abort", onAbort, { once: true })
    let finished = false
    /** @param {{ code: number, reason: string }} [event] */
    const finish = (event) => {
      if (finished) return
      finished = true
      clearTimeout(beat)
      options.signal.removeEventListener("abort", onAbort)
      if (decided !== null) return resolve(decided)
      const code = event?.code ?? 1006
      const fatal = FATAL.get(code)
      if (fatal !== undefined) return resolve({ kind: "fatal", reason: fatal })
      if (NEW_SESSION.has(code)) return resolve({ kind: "identify", delay: 0, healthy })
      resolve({ kind: "resume", healthy })
    }
    socket.onclose = (event) => finish(event)
    socket.onerror = (event) => options.log("discord: Gateway socket error", { error: event?.message })
    socket.onmessage = (event) => {
      if (typeof event.data !== "string" || event.data.length > MAX_FRAME) return
      /** @type {any} */
      let payload
      try {
        payload = JSON.parse(event.data)
      } catch {
        return
      }
      if (typeof payload !== "object" || payload === null) return
      switch (payload.op) {
        case 10: {
          const interval = Number(payload.d?.heartbeat_interval)
          if (!Number.isFinite(interval) || interval <= 0) return closeWith({ kind: "resume", healthy }, 4000)
          schedule(interval, interval * timing.random())
          if (session !== null) {
            send({ op: 6, d: { token: options.token, session_id: session.sessionId, seq } })
          } else {
            send({
              op: 2,
              d: {
                token: options.token,
                intents: options.intents,
                properties: { os: "aide", browser: "aide", device: "aide" },
              },
            })
          }
          return
        }
        case 11:
          acked = true
          return
        case 1:
          heartbeat()
          return
        case 7:
          return closeWith({ kind: "resume", healthy }, 4000)
        case 9:
          if (payload.d === true && session !== null) return closeWith({ kind: "resume", healthy }, 4000)
          return closeWith({ kind: "identify", delay: timing.invalidSessionDelay(), healthy }, 4000)
        case 0: {
          if (typeof payload.s === "number") {
            seq = payload.s
            remember({ seq })
          }
          if (payload.t === "READY") {
            const d = payload.d ?? {}
            if (typeof d.session_id === "string" && typeof d.resume_gateway_url === "string") {
              remember({ session: { sessionId: d.session_id, resumeUrl: d.resume_gateway_url } })
            }
            if (typeof d.user?.id === "string") options.onReady({ id: d.user.id })
            healthy = true
            return
          }
          if (payload.t === "RESUMED") {
            healthy = true
            return
          }
          if (typeof payload.t !== "string") return
          // One event at a time, in order; a failing one is logged and the next goes on.
          const type = payload.t
          queue = queue
            .then(() => options.dispatch(type, payload.d))
            .catch((error) => options.log("discord: an event failed", { type, error: String(error) }))
          return
        }
        default:
          return
      }
    }
  })
