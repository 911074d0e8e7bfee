import { type ChannelConversations, ChannelGateway, PluginLoader } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { NotFound } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

const pairingView = (request: ChannelConversations.PairingRequest) => ({
  channelId: request.channelId,
  code: request.code,
  senderId: request.senderId,
  senderName: request.senderName,
  createdAt: request.createdAt.toISOString(),
  expiresAt: request.expiresAt.toISOString(),
})

export const layer = HttpApiBuilder.group(AideApi, "plugins", (handlers) =>
  Effect.gen(function* () {
    const loader = yield* PluginLoader.PluginLoader
    const gateway = yield* ChannelGateway.ChannelGateway
    /** Fails 404 unless a plugin of that id was found (enabled or not). */
    const known = (id: string) =>
      Effect.flatMap(loader.list, (plugins) =>
        plugins.some((plugin) => plugin.id === id)
          ? Effect.void
          : Effect.fail(new NotFound({ error: "Plugin not found" })),
      )
    const decide = (id: string, code: string, approved: boolean) =>
      known(id).pipe(
        Effect.zipRight(gateway.decidePairing(id, code, approved)),
        Effect.map(pairingView),
        Effect.catchTag("PairingNotFound", () => Effect.fail(new NotFound({ error: "Pairing request not found" }))),
        dieOnStorageError,
      )
    return handlers
      .handle("list", () => Effect.map(loader.list, (plugins) => ({ plugins })))
      .handle("pairings", ({ path }) =>
        known(path.id).pipe(
          Effect.zipRight(gateway.pairings(path.id)),
          Effect.map(({ pairings, senders }) => ({
            pairings: pairings.map(pairingView),
            senders: senders.map((sender) => ({
              channelId: sender.channelId,
              senderId: sender.senderId,
              senderName: sender.senderName,
              approvedAt: sender.approvedAt.toISOString(),
            })),
          })),
          dieOnStorageError,
        ),
      )
      .handle("approvePairing", ({ path }) => decide(path.id, path.code, true))
      .handle("rejectPairing", ({ path }) => decide(path.id, path.code, false))
      .handle("removeSender", ({ path }) =>
        known(path.id).pipe(
          Effect.zipRight(gateway.removeSender(path.id, path.channelId, path.senderId)),
          Effect.flatMap((removed) =>
            removed
              ? Effect.succeed({ removed: path.senderId })
              : Effect.fail(new NotFound({ error: "Sender not found" })),
          ),
          dieOnStorageError,
        ),
      )
  }),
)
