import type { ChannelDriver } from "@aide/testing/channels"
import { type FakeHomeserver, startFakeHomeserver } from "./fake-homeserver.js"

/** A user's direct room with the bot: named after the user, so the kit knows it beforehand. */
const roomOf = (userId: string) => `!dm-${userId.slice(1).replace(/:.*$/, "")}:fake.test`

/**
 * The conformance kit's driver for the Matrix plugin over the fake homeserver: a user's first
 * message invites the bot into their direct room (and waits for it to join, as a person waits
 * for the bot to appear), then posts `m.room.message`; approvals are ✅/❌ reactions; what the
 * plugin sent is read back from the room timelines.
 */
export const matrixDriver = (): ChannelDriver & { readonly fake: () => FakeHomeserver } => {
  let fake: FakeHomeserver | undefined
  let last: { roomId: string; eventId: string } | undefined
  const current = () => {
    if (fake === undefined) throw new Error("the fake homeserver is not started")
    return fake
  }
  const until = async (check: () => boolean, what: string) => {
    for (let attempt = 0; attempt < 400 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 25))
    if (!check()) throw new Error(`matrix driver: ${what}`)
  }
  return {
    fake: current,
    start: async () => {
      fake = await startFakeHomeserver()
      return { config: { homeserverUrl: fake.homeserverUrl, accessToken: fake.token } }
    },
    userId: (n) => `@user${n}:fake.test`,
    directConversation: roomOf,
    sendAsUser: async ({ senderId, conversationId, text }) => {
      const fake = current()
      if (!fake.joined(conversationId)) {
        fake.invite({ from: senderId, roomId: conversationId, isDirect: true })
        await until(() => fake.joined(conversationId), `the bot did not join ${conversationId}`)
        // The join is handled once the channel polls again past it.
        await fake.polling()
      }
      last = { roomId: conversationId, eventId: fake.message(conversationId, senderId, text) }
    },
    outbound: async () =>
      current()
        .sent()
        .map((event) => ({
          conversationId: event.room_id,
          text: String(event.content.body ?? ""),
          approvals:
            typeof event.content["org.aide.approval"]?.id === "string"
              ? [{ approvalId: event.content["org.aide.approval"].id as string }]
              : [],
        })),
    clickApproval: async ({ conversationId, senderId, approvalId, approved }) => {
      const asked = current()
        .sent()
        .filter(
          (event) =>
            event.room_id === conversationId &&
            typeof event.content["org.aide.approval"]?.id === "string" &&
            (approvalId === undefined || event.content["org.aide.approval"].id === approvalId),
        )
        .at(-1)
      if (asked === undefined) throw new Error(`no approval offered in ${conversationId}`)
      current().react(conversationId, senderId, asked.event_id, approved ? "✅" : "❌")
    },
    platformLimit: 6000,
    dropConnection: async () => {
      await current().polling()
      if (current().dropPolls() === 0) throw new Error("no long poll to drop")
    },
    redeliverLast: async () => {
      if (last === undefined) throw new Error("nothing sent yet")
      current().redeliver(last.eventId)
    },
    stop: async () => {
      await fake?.close()
    },
  }
}
