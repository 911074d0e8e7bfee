import type { ChannelDriver } from "@aide/testing/channels"
import { type FakeTelegram, startFakeTelegram } from "@aide/testing/fixtures"

/** Visible text of Telegram HTML (what Telegram counts against its 4,096 limit). */
export const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")

type Button = { readonly text: string; readonly callback_data: string }
const buttonsOf = (sent: Readonly<Record<string, any>>): Array<Button> =>
  (sent.reply_markup?.inline_keyboard ?? []).flat() as Array<Button>

/**
 * The conformance kit's driver for the Telegram plugin, over the fake Bot API: users write by
 * updates served to the plugin's long polling, and what the plugin sends is read back from the
 * fake's `sendMessage` calls. `fake()` is the fake of the current run (for extra checks).
 */
export const telegramDriver = (): ChannelDriver & { readonly fake: () => FakeTelegram } => {
  let fake: FakeTelegram | undefined
  let messageId = 1
  const current = () => {
    if (fake === undefined) throw new Error("the fake Telegram is not started")
    return fake
  }
  return {
    fake: current,
    start: async () => {
      fake = await startFakeTelegram()
      return { config: { botToken: fake.token, ownerId: "100001", apiRoot: fake.apiRoot } }
    },
    directConversation: (userId) => userId,
    groupConversation: "-100777",
    sendAsUser: async ({ senderId, conversationId, text, group, mentioned }) => {
      const body = mentioned === true ? `@aide_test_bot ${text}` : text
      current().pushUpdate({
        message: {
          message_id: messageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(conversationId), type: group === true ? "supergroup" : "private" },
          from: { id: Number(senderId), is_bot: false, first_name: `User ${senderId}` },
          text: body,
          ...(mentioned === true ? { entities: [{ type: "mention", offset: 0, length: 14 }] } : {}),
        },
      })
    },
    outbound: async () =>
      current().sent.map((sent) => ({
        conversationId: String(sent.chat_id),
        text: visible(String(sent.text ?? "")),
        approvals: buttonsOf(sent)
          .filter((button) => button.callback_data.startsWith("a"))
          .map((button) => ({ approvalId: button.callback_data.slice(2) })),
      })),
    clickApproval: async ({ conversationId, senderId, approved }) => {
      const asked = current()
        .sent.filter((sent) => String(sent.chat_id) === conversationId && buttonsOf(sent).length > 0)
        .at(-1)
      if (asked === undefined) throw new Error(`no approval offered in ${conversationId}`)
      const button = buttonsOf(asked).find((candidate) => candidate.callback_data.startsWith(approved ? "a" : "d"))!
      current().pushUpdate({
        callback_query: {
          id: `cb-${messageId++}`,
          from: { id: Number(senderId), is_bot: false, first_name: `User ${senderId}` },
          chat_instance: "conformance",
          data: button.callback_data,
          message: {
            message_id: messageId++,
            date: 0,
            chat: { id: Number(conversationId), type: "private" },
            text: visible(String(asked.text)),
          },
        },
      })
    },
    platformLimit: 4096,
    dropConnection: async () => {
      const fake = current()
      // Wait for the poll to be open, so that there is a connection to drop.
      for (let attempt = 0; attempt < 200 && fake.activePolls === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      if (fake.dropPolls() === 0) throw new Error("no open poll to drop")
    },
    stop: async () => {
      await fake?.close()
    },
  }
}
