// @ts-check
/**
 * What comes in from Slack, the same over Socket Mode and the Events API: direct messages (and,
 * with `groups` on, `app_mention`s in channels) go to the assistant; approve / deny button presses
 * (`block_actions`) answer approvals. Who may talk is the gateway's decision (`allowFrom`,
 * `pairing`): every message carries its sender's Slack user id.
 */
import { unescapeSlack } from "./format.js"
import { APPROVE, conversationOf, DENY, resolveApproval } from "./outbound.js"
// Types through the `@import` tag: SES refuses source text that looks like an import expression.
/** @import { Api } from "./api.js" */
/** @import { Settings } from "./settings.js" */
/** @import { ChannelContext } from "@aide/plugin" */

/**
 * Event ids seen lately, so a delivery Slack retries (`retry_num` / `retry_attempt`, or the same
 * event over two Socket Mode connections) is handled once. Bounded by count and age: Slack's
 * retries end within about 5 minutes.
 */
export class Seen {
  /** @param {number} [max] @param {number} [ttlMs] */
  constructor(max = 2000, ttlMs = 15 * 60_000) {
    /** @type {Map<string, number>} */
    this.ids = new Map()
    this.max = max
    this.ttlMs = ttlMs
  }
  /** True the first time `id` is offered (within its age). @param {string} id */
  first(id) {
    const now = Date.now()
    const at = this.ids.get(id)
    if (at !== undefined && now - at < this.ttlMs) return false
    this.ids.delete(id)
    this.ids.set(id, now)
    while (this.ids.size > this.max) {
      const oldest = this.ids.keys().next().value
      if (oldest === undefined) break
      this.ids.delete(oldest)
    }
    return true
  }
}

/**
 * @typedef {object} Inbound
 * @property {Settings} settings
 * @property {(context: ChannelContext) => Api} apiOf the Web API over the context's fetch
 * @property {(context: ChannelContext) => Promise<{ userId: string }>} bot the bot's own identity (auth.test, cached)
 * @property {Seen} seen
 */

/**
 * An `event_callback` (the Events API's body, or an `events_api` envelope's payload).
 * @param {Inbound} inbound
 * @param {any} payload
 * @param {ChannelContext} context
 */
export const handleEventCallback = async (inbound, payload, context) => {
  if (payload?.type !== "event_callback" || typeof payload.event !== "object" || payload.event === null) return
  if (typeof payload.event_id === "string" && !inbound.seen.first(payload.event_id)) return
  const event = payload.event
  // Bots (ourselves included) and edits, joins… are not the owner writing.
  if (event.bot_id !== undefined || event.subtype !== undefined || typeof event.user !== "string") return
  const bot = await inbound.bot(context)
  if (event.user === bot.userId) return
  const channel = String(event.channel ?? "")
  if (channel === "") return
  const sender = { id: event.user }
  if (event.type === "message" && event.channel_type === "im") {
    const text = unescapeSlack(String(event.text ?? ""))
    if (text.trim() === "") return
    // A DM is one conversation; a thread inside it is one of its own, answered in that thread.
    const conversationId = typeof event.thread_ts === "string" ? `${channel}:${event.thread_ts}` : channel
    await context.receive({ conversationId, text, sender, group: false })
    return
  }
  if (event.type === "app_mention") {
    if (!inbound.settings.groups) {
      context.log("slack: ignored a mention in a channel (groups are off)", { channel })
      return
    }
    const mention = new RegExp(`<@${bot.userId}(\\|[^>]*)?>`, "g")
    const text = unescapeSlack(String(event.text ?? "").replace(mention, "")).trim()
    if (text === "") return
    // Each mention starts (or continues) a Slack thread: one Aide thread per Slack thread.
    const thread = typeof event.thread_ts === "string" ? event.thread_ts : String(event.ts)
    await context.receive({ conversationId: `${channel}:${thread}`, text, sender, group: true, mentioned: true })
  }
  // Channel messages without a mention are not for the assistant (Slack sends the mention as
  // `app_mention` too, so answering `message.channels` would answer twice).
}

/**
 * An interaction payload (`block_actions` from an approval message's buttons).
 * @param {Inbound} inbound
 * @param {any} payload
 * @param {ChannelContext} context
 */
export const handleInteraction = async (inbound, payload, context) => {
  if (payload?.type !== "block_actions" || !Array.isArray(payload.actions)) return
  const userId = String(payload.user?.id ?? "")
  for (const action of payload.actions) {
    if (action?.action_id !== APPROVE && action?.action_id !== DENY) continue
    const decision = resolveApproval(String(action.value ?? ""))
    if (decision === null) continue
    // In a DM only its owner can press; in a channel anyone could, so only allowFrom may.
    if (conversationOf(decision.conversationId).group && !inbound.settings.allowFrom.includes(userId)) {
      context.log("slack: ignored an approval press from someone not in allowFrom", { userId })
      continue
    }
    const approved = action.action_id === APPROVE
    let outcome = approved ? "✅ Approved" : "❌ Denied"
    try {
      await context.answerApproval({
        conversationId: decision.conversationId,
        approvalId: decision.approvalId,
        approved,
      })
    } catch (error) {
      context.log("slack: the approval answer was refused", { error: String(error) })
      outcome = "This approval could not be recorded."
    }
    const channel = payload.container?.channel_id ?? payload.channel?.id
    const ts = payload.container?.message_ts ?? payload.message?.ts
    if (typeof channel === "string" && typeof ts === "string") {
      // The buttons go away so that the same call is not answered twice.
      const blocks = [
        ...(payload.message?.blocks ?? []).filter((/** @type {any} */ block) => block?.type !== "actions"),
      ]
      blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `${outcome} by <@${userId}>` }] })
      await inbound
        .apiOf(context)
        .call("chat.update", inbound.settings.botToken, { channel, ts, text: outcome, blocks }, context.signal)
        .catch((error) => context.log("slack: could not update the approval message", { error: String(error) }))
    }
  }
}
