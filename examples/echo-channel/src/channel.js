// @ts-check
/**
 * Echo Chat's channel. The platform's API (see test/fake-echo-chat.ts, its fake):
 * - `GET /updates?after=<id>&wait=<seconds>` long-polls `{ updates: [{ id, kind: "message",
 *   messageId, conversationId, senderId, senderName, text } | { id, kind: "click", conversationId,
 *   senderId, data }] }`; a message may come twice (the platform retries until it is sure), with
 *   the same `messageId`;
 * - `POST /messages { conversationId, text, buttons? }` posts a message (at most 500 characters),
 *   `buttons: [{ label, data }]` under it.
 * Aide decides who may talk (`allowFrom`, `pairing`): the channel passes everyone on with their id.
 */
import { defineChannel, splitMessage } from "@aide/plugin"

/** Echo Chat refuses longer messages. */
const LIMIT = 500

/** Message ids seen lately: a redelivered message is passed on once. Bounded, oldest forgotten first. */
const seen = new Set()
/** @param {string} id */
const firstTime = (id) => {
  if (seen.has(id)) return false
  seen.add(id)
  if (seen.size > 1000) seen.delete(seen.values().next().value)
  return true
}

/** @param {Readonly<Record<string, unknown>>} config */
const baseOf = (config) => String(config.baseUrl ?? "").replace(/\/+$/, "")

/**
 * @param {string} base
 * @param {{ conversationId: string, text: string, buttons?: Array<{ label: string, data: string }> }} message
 * @param {AbortSignal} signal
 */
const post = async (base, message, signal) => {
  const response = await fetch(`${base}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(message),
    signal,
  })
  if (!response.ok) throw new Error(`Echo Chat answered ${response.status}`)
}

export default defineChannel({
  id: "chat",
  name: "Echo Chat",
  realtime: {
    // Runs until Aide stops the channel; a thrown error makes Aide start it again with backoff.
    start: async (context) => {
      const base = baseOf(context.config)
      let after = 0
      while (!context.signal.aborted) {
        const response = await fetch(`${base}/updates?after=${after}&wait=25`, { signal: context.signal }).catch(
          (error) => {
            if (context.signal.aborted) return null
            throw error
          },
        )
        if (response === null) return
        if (!response.ok) throw new Error(`Echo Chat answered ${response.status}`)
        const { updates } = /** @type {{ updates: Array<any> }} */ (await response.json())
        for (const update of updates) {
          after = Math.max(after, update.id)
          const sender = { id: String(update.senderId), name: update.senderName }
          if (update.kind === "message") {
            if (!firstTime(`${update.conversationId}/${update.messageId}`)) continue
            await context.receive({ conversationId: update.conversationId, text: update.text, sender })
          } else if (update.kind === "click") {
            const [verdict = "", approvalId = ""] = String(update.data).split(":")
            await context
              .answerApproval({
                conversationId: update.conversationId,
                approvalId,
                approved: verdict === "yes",
                sender,
              })
              .catch((error) => context.log("echo-chat: approval refused", { error: String(error) }))
          }
        }
      }
    },
  },
  send: async (message, context) => {
    const base = baseOf(context.config)
    for (const text of splitMessage(message.text, LIMIT)) {
      await post(base, { conversationId: message.conversationId, text }, context.signal)
    }
    for (const approval of message.approvals) {
      const text = `Allow ${approval.toolName}? ${JSON.stringify(approval.input)}`.slice(0, LIMIT)
      const buttons = [
        { label: "Allow", data: `yes:${approval.approvalId}` },
        { label: "Deny", data: `no:${approval.approvalId}` },
      ]
      await post(base, { conversationId: message.conversationId, text, buttons }, context.signal)
    }
  },
  notify: async (notification, context) => {
    const conversationId = String(context.config.notifyTo ?? "")
    if (conversationId === "") throw new Error("echo-chat: set notifyTo to receive notifications")
    const text = `${notification.subject}\n\n${notification.body}`
    for (const chunk of splitMessage(text, LIMIT))
      await post(baseOf(context.config), { conversationId, text: chunk }, context.signal)
  },
})
