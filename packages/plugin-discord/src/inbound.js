// @ts-check
/**
 * What comes in over the Gateway: messages (MESSAGE_CREATE) and button clicks
 * (INTERACTION_CREATE). Who may talk is the gateway's decision (Aide's allowlist and pairing):
 * every message goes to `context.receive` with its `sender`, `group` and `mentioned`. The
 * channel itself drops only what is never meant for the assistant: bots (itself included),
 * system messages, and guild messages that do not mention it or arrive while `groups` is off.
 */
/** @import { ChannelContext } from "@aide/plugin" */
/** @import { Rest } from "./rest.js" */
import { approvalOf } from "./outbound.js"

/** Message types that carry what a person wrote: DEFAULT and REPLY. */
const USER_MESSAGE_TYPES = new Set([0, 19])
/** Interaction callback types (discord-api-docs `receiving-and-responding.mdx`). */
const CHANNEL_MESSAGE_WITH_SOURCE = 4
const UPDATE_MESSAGE = 7
const EPHEMERAL = 1 << 6

/**
 * @typedef {object} Inbound
 * @property {Rest} rest
 * @property {boolean} groups
 * @property {() => string | null} botId the bot's user id, from READY
 */

/**
 * The text without the bot's mention (`<@id>` or the older `<@!id>`).
 * @param {string} content
 * @param {string} botId
 */
const withoutMention = (content, botId) => content.replaceAll(`<@${botId}>`, "").replaceAll(`<@!${botId}>`, "").trim()

/**
 * @param {Inbound} inbound
 * @param {any} message a Discord message object
 * @param {ChannelContext} context
 */
const onMessage = async (inbound, message, context) => {
  const author = message?.author
  if (typeof author?.id !== "string" || author.bot === true || typeof message.channel_id !== "string") return
  if (!USER_MESSAGE_TYPES.has(message.type ?? 0) || typeof message.content !== "string") return
  const botId = inbound.botId()
  const group = typeof message.guild_id === "string"
  const mentioned =
    botId !== null &&
    (Array.isArray(message.mentions) ? message.mentions.some((/** @type {any} */ user) => user?.id === botId) : false)
  if (group && (!inbound.groups || !mentioned)) return
  const text = group && botId !== null ? withoutMention(message.content, botId) : message.content
  if (text.trim() === "") return
  const name = typeof author.global_name === "string" ? author.global_name : author.username
  const inboundMessage = {
    conversationId: message.channel_id,
    text,
    sender: typeof name === "string" ? { id: author.id, name } : { id: author.id },
    group,
    mentioned: group ? mentioned : undefined,
  }
  if (!group) delete inboundMessage.mentioned
  await context.receive(inboundMessage)
}

/**
 * @param {Rest} rest
 * @param {any} interaction
 * @param {unknown} body
 * @param {AbortSignal} signal
 */
const respond = (rest, interaction, body, signal) =>
  rest.call(
    "POST",
    `/interactions/${encodeURIComponent(interaction.id)}/${encodeURIComponent(interaction.token)}/callback`,
    {
      body,
      signal,
    },
  )

/**
 * A button click on an approval message: `answerApproval`, then the interaction answered within
 * Discord's 3 s (the message edited to say what was decided, its buttons gone).
 * @param {Inbound} inbound
 * @param {any} interaction
 * @param {ChannelContext} context
 */
const onInteraction = async (inbound, interaction, context) => {
  if (interaction?.type !== 3 || typeof interaction.id !== "string" || typeof interaction.token !== "string") return
  const user = interaction.user ?? interaction.member?.user
  const decision = approvalOf(String(interaction.data?.custom_id ?? ""))
  if (decision === null || typeof user?.id !== "string" || typeof interaction.channel_id !== "string") return
  try {
    // Aide checks the clicker like a message's sender: in a server channel anyone can click.
    await context.answerApproval({ conversationId: interaction.channel_id, ...decision, sender: { id: user.id } })
  } catch (error) {
    context.log("discord: the approval answer was refused", { error: String(error) })
    await respond(
      inbound.rest,
      interaction,
      {
        type: CHANNEL_MESSAGE_WITH_SOURCE,
        data: { content: "This approval could not be recorded.", flags: EPHEMERAL },
      },
      context.signal,
    )
    return
  }
  const before = typeof interaction.message?.content === "string" ? interaction.message.content : ""
  const verdict = decision.approved ? "✅ Approved" : "❌ Denied"
  await respond(
    inbound.rest,
    interaction,
    { type: UPDATE_MESSAGE, data: { content: `${before.slice(0, 1980)}\n\n**${verdict}**`, components: [] } },
    context.signal,
  )
}

/**
 * Handles one Gateway dispatch.
 * @param {Inbound} inbound
 * @param {string} type
 * @param {any} data
 * @param {ChannelContext} context
 */
export const handleDispatch = async (inbound, type, data, context) => {
  if (type === "MESSAGE_CREATE") await onMessage(inbound, data, context)
  else if (type === "INTERACTION_CREATE") await onInteraction(inbound, data, context)
}
