import { Context, type Effect } from "effect"
import type { PairingRequest } from "./ChannelConversations.js"

/**
 * Tells the owner about a new pairing request (the kernel's: an inbox message, see
 * inbox/PairingInbox.ts). Optional: without it the request is only listed in the console.
 * A Tag of its own so that the gateway does not depend on the inbox, which sits above it.
 */
export class PairingNotifier extends Context.Tag("@aide/kernel/PairingNotifier")<
  PairingNotifier,
  { readonly requested: (request: PairingRequest, channelName: string) => Effect.Effect<void> }
>() {}
