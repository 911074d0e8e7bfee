import type { ChannelDriver } from "@aide/testing/channels"
import { type FakeDiscord, startFakeDiscord } from "./fake-discord.js"

const GUILD = "400000000000000001"
const GUILD_CHANNEL = "400000000000000002"
/** A user's DM channel with the bot: derived from the user id, so the kit knows it beforehand. */
const dmOf = (userId: string) => String(BigInt(userId) + 100_000_000_000_000_000n)

/**
 * The conformance kit's driver for the Discord plugin over the fake Discord: users write by
 * MESSAGE_CREATE on the fake Gateway, click by INTERACTION_CREATE, and what the plugin posts is
 * read back from the fake REST API.
 */
export const discordDriver = (): ChannelDriver & { readonly fake: () => FakeDiscord } => {
  let fake: FakeDiscord | undefined
  const current = () => {
    if (fake === undefined) throw new Error("the fake Discord is not started")
    return fake
  }
  const ready = async () => {
    for (let attempt = 0; attempt < 400 && !current().ready(); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    if (!current().ready()) throw new Error("the channel never connected to the fake Gateway")
  }
  const approvalsOf = (components: ReadonlyArray<any>) =>
    components
      .flatMap((row) => row.components ?? [])
      .map((button: { custom_id?: string }) => /^aide:a:(.+)$/.exec(button.custom_id ?? "")?.[1])
      .filter((id): id is string => id !== undefined)
      .map((approvalId) => ({ approvalId }))
  return {
    fake: current,
    start: async () => {
      // A roomier bucket than Discord's 5 per 5 s per channel, so the suite does not wait on it.
      fake = await startFakeDiscord({ dmChannelOf: dmOf, bucket: { limit: 50, windowMs: 1_000 } })
      return { config: { botToken: fake.token, apiBase: fake.apiBase } }
    },
    userId: (n) => String(200_000_000_000_000_001n + BigInt(n)),
    directConversation: dmOf,
    groupConversation: GUILD_CHANNEL,
    sendAsUser: async ({ senderId, conversationId, text, group, mentioned }) => {
      await ready()
      const fake = current()
      fake.userMessage({
        authorId: senderId,
        channelId: conversationId,
        content: mentioned === true ? `<@${fake.botId}> ${text}` : text,
        ...(group === true ? { guildId: GUILD } : {}),
        mentionsBot: mentioned === true,
      })
    },
    outbound: async () =>
      current().messages.map((message) => ({
        conversationId: message.channelId,
        text: message.content,
        approvals: approvalsOf(message.components),
      })),
    clickApproval: async ({ conversationId, senderId, approvalId, approved }) => {
      const asked = current()
        .messages.filter(
          (message) =>
            message.channelId === conversationId &&
            approvalsOf(message.components).some(
              (offer) => approvalId === undefined || offer.approvalId === approvalId,
            ),
        )
        .at(-1)
      if (asked === undefined) throw new Error(`no approval offered in ${conversationId}`)
      const id = approvalId ?? approvalsOf(asked.components)[0]!.approvalId
      current().click({
        userId: senderId,
        channelId: conversationId,
        customId: `aide:${approved ? "a" : "d"}:${id}`,
        messageId: asked.id,
      })
    },
    platformLimit: 2000,
    dropConnection: async () => {
      await ready()
      current().dropConnection()
    },
    stop: async () => {
      await fake?.close()
    },
  }
}
