import type { ChannelDriver } from "@aide/testing/channels"
import { type FakeSlack, startFakeSlack } from "./fake-slack.js"

/** What a user sees of mrkdwn: Slack's escapes undone (the markup is a few characters at most). */
const visible = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/** The approval id a message's buttons carry (their `value`), if it has buttons. */
const approvalsOf = (blocks: ReadonlyArray<any> | undefined) =>
  (blocks ?? [])
    .filter((block) => block.type === "actions")
    .map((block) => ({ approvalId: JSON.parse(block.elements[0].value).a as string }))

/**
 * The conformance kit's driver for the Slack plugin in Socket Mode, over the fake Slack: users
 * write by `events_api` envelopes on the plugin's socket, press buttons by `interactive` ones, and
 * what the plugin posts is read back from the fake's `chat.postMessage` calls.
 */
export const slackDriver = (): ChannelDriver & { readonly fake: () => FakeSlack } => {
  let fake: FakeSlack | undefined
  let seq = 0
  const current = () => {
    if (fake === undefined) throw new Error("the fake Slack is not started")
    return fake
  }
  const conversationOf = (message: { channel: string; thread_ts?: string }) =>
    message.thread_ts === undefined ? message.channel : `${message.channel}:${message.thread_ts}`
  return {
    fake: current,
    start: async () => {
      fake = await startFakeSlack()
      return { config: { botToken: fake.botToken, appToken: fake.appToken, apiRoot: fake.apiRoot } }
    },
    userId: (n) => `U${100_001 + n}`,
    directConversation: (userId) => `D${userId.slice(1)}`,
    groupConversation: "C777",
    sendAsUser: async ({ senderId, conversationId, text, group, mentioned }) => {
      const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, "0")}`
      if (group === true) {
        const [channel] = conversationId.split(":")
        current().pushEvent(
          mentioned === true
            ? { type: "app_mention", channel, user: senderId, text: `<@${current().botUserId}> ${text}`, ts }
            : { type: "message", channel, channel_type: "channel", user: senderId, text, ts },
        )
        return
      }
      current().pushEvent({ type: "message", channel: conversationId, channel_type: "im", user: senderId, text, ts })
    },
    outbound: async () =>
      current().posted.map((message) => {
        const approvals = approvalsOf(message.blocks)
        return {
          conversationId: conversationOf(message),
          text: visible(message.text),
          ...(approvals.length > 0 ? { approvals } : {}),
        }
      }),
    clickApproval: async ({ conversationId, senderId, approvalId, approved }) => {
      const offered = current()
        .posted.filter((message) => conversationOf(message) === conversationId)
        .filter((message) =>
          approvalsOf(message.blocks).some(
            (approval) => approvalId === undefined || approval.approvalId === approvalId,
          ),
        )
        .at(-1)
      if (offered === undefined) throw new Error(`no approval offered in ${conversationId}`)
      const buttons = offered.blocks!.find((block) => block.type === "actions").elements
      current().pushInteraction({
        type: "block_actions",
        user: { id: senderId },
        container: { type: "message", message_ts: offered.ts, channel_id: offered.channel },
        channel: { id: offered.channel },
        message: { ts: offered.ts, blocks: offered.blocks },
        actions: [buttons[approved ? 0 : 1]],
      })
    },
    platformLimit: 4000,
    dropConnection: async () => current().drop(),
    redeliverLast: async () => current().redeliverLastEvent(),
    stop: async () => {
      await fake?.close()
    },
  }
}
