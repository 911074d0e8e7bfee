// @ts-check
/**
 * `/sync` long polling (matrix-spec `data/api/client-server/sync.yaml`) until the channel stops.
 *
 * Where the `since` token is kept: in the bot's own account data on the homeserver
 * (`PUT /user/{userId}/account_data/org.aide.channel.sync`). The plugin API gives a channel no
 * storage and no data folder (its process runs in the plugin's install folder, which may be
 * read-only or shared), and the kernel keeps nothing for channels. Account data is durable
 * per-user storage that every replica holding the channel's lease reads alike, so a restart or
 * a moved connection resumes from the last handled batch and does not answer old messages.
 * A bot with no token yet (first start) syncs once without answering anything: history stays history.
 */
/** @import { ChannelContext } from "@aide/plugin" */
/** @import { Client } from "./client.js" */
import { enc, MatrixError, sleep } from "./client.js"
import { APPROVAL_KEY, APPROVE, DENY } from "./outbound.js"

export const SYNC_DATA_TYPE = "org.aide.channel.sync"
const POLL_MS = 30_000
const FILTER = JSON.stringify({
  presence: { not_types: ["*"] },
  account_data: { not_types: ["*"] },
  room: { timeline: { limit: 50, types: ["m.room.message", "m.reaction"] }, ephemeral: { not_types: ["*"] } },
})
/** Event ids remembered against a batch seen twice (a save that did not happen before a restart). */
const SEEN_LIMIT = 2000

/**
 * @typedef {object} SyncOptions
 * @property {Client} client
 * @property {string} userId the bot's own id (`GET /account/whoami`)
 * @property {ReadonlyArray<string>} allowFrom
 * @property {boolean} pairing
 * @property {(inviter: string, roomId: string) => Promise<void>} onJoined
 * @property {{ since: string | null }} state kept across restarts of the same channel
 */

/**
 * The plain text of a message: a reply's legacy fallback (`> ` lines before a blank line) removed.
 * @param {any} content
 */
const textOf = (content) => {
  const body = typeof content?.body === "string" ? content.body : ""
  if (content?.["m.relates_to"]?.["m.in_reply_to"] === undefined) return body
  const lines = body.split("\n")
  let index = 0
  while (index < lines.length && lines[index]?.startsWith(">")) index++
  return lines.slice(index).join("\n").trim()
}

/** @param {string} key */
const decisionOf = (key) => {
  const bare = key.replace(/\uFE0F/g, "")
  if (bare === APPROVE || bare === "👍") return true
  if (bare === DENY || bare === "👎") return false
  return null
}

/**
 * @param {SyncOptions} options
 * @param {string} roomId
 * @param {any} event a reaction
 * @param {ChannelContext} context
 */
const onReaction = async (options, roomId, event, context) => {
  const relation = event.content?.["m.relates_to"]
  if (relation?.rel_type !== "m.annotation" || typeof relation.event_id !== "string") return
  const approved = decisionOf(String(relation.key ?? ""))
  if (approved === null) return
  // The approval id is on the message reacted to; reading it back keeps nothing in memory.
  const target = await options.client
    .request("GET", `/rooms/${enc(roomId)}/event/${enc(relation.event_id)}`, {
      signal: context.signal,
      idempotent: true,
    })
    .catch((error) => {
      context.log("matrix: the message reacted to could not be read", { roomId, error: String(error) })
      return null
    })
  const approvalId = target?.content?.[APPROVAL_KEY]?.id
  if (target?.sender !== options.userId || typeof approvalId !== "string") return
  try {
    // Aide checks who reacted like a message's sender.
    await context.answerApproval({ conversationId: roomId, approvalId, approved, sender: { id: event.sender } })
  } catch (error) {
    context.log("matrix: the approval answer was refused", { error: String(error) })
  }
}

/**
 * An invite: joined when the inviter may talk (on allowFrom, or anyone's direct invite with pairing on).
 * @param {SyncOptions} options
 * @param {string} roomId
 * @param {any} invite
 * @param {ChannelContext} context
 */
const onInvite = async (options, roomId, invite, context) => {
  const events = Array.isArray(invite?.invite_state?.events) ? invite.invite_state.events : []
  const own = events.find(
    (/** @type {any} */ event) =>
      event?.type === "m.room.member" && event.state_key === options.userId && event.content?.membership === "invite",
  )
  if (own === undefined || typeof own.sender !== "string") return
  const direct = own.content?.is_direct === true
  if (!options.allowFrom.includes(own.sender) && !(options.pairing && direct)) {
    context.log("matrix: ignored an invite from someone not on allowFrom", { inviter: own.sender })
    return
  }
  // Joining a room one is in already changes nothing: safe to retry.
  await options.client.request("POST", `/rooms/${enc(roomId)}/join`, {
    body: {},
    signal: context.signal,
    idempotent: true,
  })
  await options.onJoined(own.sender, roomId)
}

/**
 * Handles one sync response.
 * @param {SyncOptions} options
 * @param {any} response
 * @param {boolean} catchingUp the first sync without a token: invites only, no answers to history
 * @param {Set<string>} seen
 * @param {ChannelContext} context
 * @returns {Promise<number>} how many events it looked at
 */
const handle = async (options, response, catchingUp, seen, context) => {
  let count = 0
  for (const [roomId, invite] of Object.entries(response?.rooms?.invite ?? {})) {
    count++
    await onInvite(options, roomId, invite, context).catch((error) =>
      context.log("matrix: joining a room failed", { roomId, error: String(error) }),
    )
  }
  for (const [roomId, room] of Object.entries(response?.rooms?.join ?? {})) {
    const events = /** @type {any} */ (room)?.timeline?.events
    if (!Array.isArray(events)) continue
    for (const event of events) {
      count++
      if (catchingUp || typeof event?.event_id !== "string" || event.sender === options.userId) continue
      if (seen.has(event.event_id)) continue
      seen.add(event.event_id)
      if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value ?? "")
      try {
        if (event.type === "m.reaction") await onReaction(options, roomId, event, context)
        else if (event.type === "m.room.message" && event.content?.msgtype === "m.text") {
          const text = textOf(event.content)
          if (text.trim() !== "") {
            // The rooms it joins are direct ones.
            await context.receive({ conversationId: roomId, text, sender: { id: event.sender }, group: false })
          }
        }
      } catch (error) {
        context.log("matrix: an event failed", { roomId, type: event.type, error: String(error) })
      }
    }
  }
  return count
}

/**
 * @param {SyncOptions} options
 * @param {AbortSignal} signal
 */
const loadSince = async (options, signal) => {
  try {
    const data = await options.client.request("GET", `/user/${enc(options.userId)}/account_data/${SYNC_DATA_TYPE}`, {
      signal,
    })
    return typeof data?.next_batch === "string" ? data.next_batch : null
  } catch (error) {
    if (error instanceof MatrixError && error.errcode === "M_NOT_FOUND") return null
    throw error
  }
}

/**
 * Long-polls until the signal aborts (resolves) or the homeserver refuses the token (rejects).
 * @param {SyncOptions} options
 * @param {ChannelContext} context
 */
export const runSync = async (options, context) => {
  const signal = context.signal
  const seen = new Set()
  if (options.state.since === null) options.state.since = await loadSince(options, signal)
  let failures = 0
  while (!signal.aborted) {
    const since = options.state.since
    const query = new URLSearchParams({ filter: FILTER, timeout: since === null ? "0" : String(POLL_MS) })
    if (since !== null) query.set("since", since)
    /** @type {any} */
    let response
    try {
      response = await options.client.request("GET", `/sync?${query}`, {
        signal,
        idempotent: true,
        timeoutMs: POLL_MS + 15_000,
      })
    } catch (error) {
      if (signal.aborted) return
      if (error instanceof MatrixError && error.status === 401) {
        throw new Error(`matrix: the homeserver refused the access token (${error.errcode ?? 401}): check accessToken`)
      }
      failures++
      if (failures >= 5) throw error
      await sleep(Math.min(30_000, 1000 * 2 ** failures) * (0.5 + Math.random() / 2), signal).catch(() => undefined)
      continue
    }
    failures = 0
    if (typeof response?.next_batch !== "string") throw new Error("matrix: /sync gave no next_batch")
    const count = await handle(options, response, since === null, seen, context)
    // Saved after handling: a crash in between answers that batch again (at least once), never skips it.
    if (count > 0 || since === null) {
      await options.client.request("PUT", `/user/${enc(options.userId)}/account_data/${SYNC_DATA_TYPE}`, {
        body: { next_batch: response.next_batch },
        idempotent: true,
        signal,
      })
    }
    options.state.since = response.next_batch
  }
}
