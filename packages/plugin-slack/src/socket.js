// @ts-check
/**
 * Socket Mode: `apps.connections.open` (app-level token) gives a single-use `wss:` URL; Slack
 * sends `hello` first, then envelopes (`events_api`, `interactive`, `slash_commands`), each
 * acknowledged at once by echoing its `envelope_id` (unacknowledged ones are redelivered with
 * `retry_attempt`). `disconnect` (`refresh_requested`, `warning`, `link_disabled`) asks for a
 * fresh URL: we close and reconnect at once.
 */
import { SlackApiError, sleep } from "./api.js"

// Types through the `@import` tag: SES refuses source text that looks like an import expression.
/** @import { Api } from "./api.js" */
/** @import { ChannelWebSocket } from "@aide/plugin" */

/** `apps.connections.open` errors no retry can fix (the SDK's list): the channel fails, Aide shows why. */
const UNRECOVERABLE = new Set([
  "not_authed",
  "invalid_auth",
  "account_inactive",
  "user_removed_from_team",
  "team_disabled",
  "not_allowed_token_type",
])

/** Without `hello` this long after connecting, the connection is given up. */
const HELLO_TIMEOUT_MS = 10_000
/** Connections in a row that fail before `hello` before `start` rejects (Aide then backs off). */
const MAX_FAILURES = 4

/**
 * The wait before the `failures`-th reconnect: 250 ms doubling up to 30 s, with full jitter
 * (half to all of it) so that replicas and channels do not reconnect in step.
 * @param {number} failures
 * @param {() => number} random
 */
export const backoffMs = (failures, random = Math.random) => {
  const base = Math.min(30_000, 250 * 2 ** Math.max(0, failures - 1))
  return Math.round(base * (0.5 + random() / 2))
}

/** @typedef {ChannelWebSocket} SocketSocket the socket of `context.webSocket` */

/**
 * One connection, until it closes: resolves with whether `hello` came and whether Slack asked
 * for a refresh.
 * @param {SocketSocket} socket
 * @param {AbortSignal} signal
 * @param {(envelope: any) => void} onEnvelope
 * @returns {Promise<{ hello: boolean, refresh: boolean, reason: string }>}
 */
const session = (socket, signal, onEnvelope) =>
  new Promise((resolve) => {
    let hello = false
    let refresh = false
    let reason = "closed"
    const stop = () => socket.close(1000, "stopping")
    const noHello = setTimeout(() => {
      reason = "no hello in time"
      socket.close(4000, reason)
    }, HELLO_TIMEOUT_MS)
    signal.addEventListener("abort", stop, { once: true })
    socket.onerror = (event) => {
      reason = event.message || "socket error"
    }
    socket.onclose = (event) => {
      clearTimeout(noHello)
      signal.removeEventListener("abort", stop)
      resolve({ hello, refresh, reason: refresh ? reason : `${reason} (code ${event.code})` })
    }
    socket.onmessage = (event) => {
      let frame
      try {
        frame = JSON.parse(String(event.data))
      } catch {
        return
      }
      if (frame?.type === "hello") {
        hello = true
        clearTimeout(noHello)
      } else if (frame?.type === "disconnect") {
        refresh = true
        reason = `disconnect: ${String(frame.reason ?? "unknown")}`
        socket.close(1000, "refresh")
      } else if (typeof frame?.envelope_id === "string") {
        // Ack before handling: handling never takes long (receive only queues), and Slack would
        // redeliver after ~3 s; redeliveries are deduplicated by event id anyway.
        socket.send(JSON.stringify({ envelope_id: frame.envelope_id }))
        onEnvelope(frame)
      }
    }
  })

/**
 * Keeps Socket Mode connected until `signal` aborts (resolves then). A refresh reconnects at
 * once; a dropped connection after `hello` reconnects after a short jittered wait; connections
 * that fail before `hello` are retried with backoff, and after MAX_FAILURES in a row (or an
 * unrecoverable token error) `run` rejects so Aide shows the reason and backs off itself.
 * @param {object} options
 * @param {Api} options.api
 * @param {string} options.appToken
 * @param {(url: string) => SocketSocket | Promise<SocketSocket>} options.webSocket
 * @param {AbortSignal} options.signal
 * @param {(message: string, data?: unknown) => void} options.log
 * @param {(envelope: any) => void} options.onEnvelope
 * @param {() => number} [options.random]
 */
export const runSocketMode = async ({ api, appToken, webSocket, signal, log, onEnvelope, random }) => {
  let failures = 0
  while (!signal.aborted) {
    let outcome
    try {
      const opened = await api.call("apps.connections.open", appToken, {}, signal)
      if (typeof opened.url !== "string") throw new Error("apps.connections.open gave no url")
      outcome = await session(await webSocket(opened.url), signal, onEnvelope)
    } catch (error) {
      if (signal.aborted) return
      if (error instanceof SlackApiError && UNRECOVERABLE.has(error.code)) throw error
      outcome = { hello: false, refresh: false, reason: error instanceof Error ? error.message : String(error) }
    }
    if (signal.aborted) return
    if (outcome.refresh) {
      failures = 0
      continue
    }
    failures = outcome.hello ? 1 : failures + 1
    if (failures > MAX_FAILURES) throw new Error(`slack: Socket Mode keeps failing: ${outcome.reason}`)
    const wait = backoffMs(failures, random)
    log("slack: the Socket Mode connection ended; reconnecting", { reason: outcome.reason, waitMs: wait })
    await sleep(wait, signal).catch(() => undefined)
  }
}
