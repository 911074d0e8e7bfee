import { Effect, Layer } from "effect"
import type { PairingRequest } from "../channels/gateway/ChannelConversations.js"
import { PairingNotifier } from "../channels/gateway/PairingNotifier.js"
import { Inbox, webDestination } from "./Inbox.js"

/** Text a stranger chose (their display name), shown inert: one line in a code span. */
const inert = (text: string) => `\`${text.replace(/[`\r\n]/g, " ").slice(0, 200)}\``

/** The inbox message telling the owner about a pairing request. */
export const noticeOf = (request: PairingRequest, channelName: string) => ({
  subject: `Pairing request on ${channelName}`,
  body: [
    `Someone who is not on ${channelName}'s allowlist wrote to the assistant and asks to talk to it:`,
    "",
    `- sender: ${inert(request.senderId)}${request.senderName === null ? "" : ` (${inert(request.senderName)})`}`,
    `- code: **${request.code}**`,
    `- expires: ${request.expiresAt.toISOString()}`,
    "",
    "They got no answer. Approve or reject the code on the Plugins page (the plugin's card) if you",
    "know who it is; approved, they may talk from their next message on.",
  ].join("\n"),
  destination: webDestination,
})

/**
 * Pairing requests reach the owner as web inbox messages (the console lists them too). A failing
 * inbox is logged: the request itself is stored already.
 */
export const layer: Layer.Layer<PairingNotifier, never, Inbox> = Layer.effect(
  PairingNotifier,
  Effect.map(Inbox, (inbox) =>
    PairingNotifier.of({
      requested: (request, channelName) =>
        inbox.create(noticeOf(request, channelName)).pipe(
          Effect.asVoid,
          Effect.catchAll((error) =>
            Effect.logWarning("channels: the pairing request could not be put in the inbox").pipe(
              Effect.annotateLogs({ error: error.message }),
            ),
          ),
        ),
    }),
  ),
)
