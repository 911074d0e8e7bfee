import { PluginView } from "@aide/kernel/internal"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

export const PluginList = Schema.Struct({ plugins: Schema.Array(PluginView.PluginView) }).annotations({
  identifier: "PluginList",
})

/** An unknown sender's request to talk through one of the plugin's channels. */
export const Pairing = Schema.Struct({
  channelId: Schema.String,
  code: Schema.String,
  senderId: Schema.String,
  senderName: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  expiresAt: Schema.String,
}).annotations({ identifier: "Pairing" })

/** A sender the owner approved (they may talk beside the plugin's `allowFrom`). */
export const ApprovedSender = Schema.Struct({
  channelId: Schema.String,
  senderId: Schema.String,
  senderName: Schema.NullOr(Schema.String),
  approvedAt: Schema.String,
}).annotations({ identifier: "ApprovedSender" })

export const PairingList = Schema.Struct({
  pairings: Schema.Array(Pairing),
  senders: Schema.Array(ApprovedSender),
}).annotations({ identifier: "PairingList" })

const bounded = (name: string, max: number) =>
  Schema.String.pipe(
    Schema.minLength(1),
    Schema.maxLength(max),
    Schema.annotations({ message: () => ({ message: `${name} must be 1 to ${max} characters`, override: true }) }),
  )

const PluginPath = Schema.Struct({ id: bounded("id", 64) })
const PairingPath = Schema.Struct({ id: bounded("id", 64), code: bounded("code", 16) })
const SenderPath = Schema.Struct({
  id: bounded("id", 64),
  channelId: bounded("channelId", 64),
  senderId: bounded("senderId", 320),
})

/** SPEC "Plugins and models": the plugins found, with their config, environment and problems. */
export class PluginsApi extends HttpApiGroup.make("plugins")
  .add(
    HttpApiEndpoint.get("list", "/api/plugins")
      .addSuccess(PluginList)
      .annotate(OpenApi.Summary, "List plugins, their settings and their problems"),
  )
  // Beyond SPEC (docs/api-decisions.md): owner-only channels' pairing requests and approved senders.
  .add(
    HttpApiEndpoint.get("pairings", "/api/plugins/:id/pairings")
      .setPath(PluginPath)
      .addSuccess(PairingList)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire)
      .annotate(OpenApi.Summary, "List a channel plugin's pairing requests and approved senders"),
  )
  .add(
    HttpApiEndpoint.post("approvePairing", "/api/plugins/:id/pairings/:code/approve")
      .setPath(PairingPath)
      .addSuccess(Pairing)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire)
      .annotate(OpenApi.Summary, "Approve a pairing request: its sender may talk from then on"),
  )
  .add(
    HttpApiEndpoint.post("rejectPairing", "/api/plugins/:id/pairings/:code/reject")
      .setPath(PairingPath)
      .addSuccess(Pairing)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire)
      .annotate(OpenApi.Summary, "Reject a pairing request"),
  )
  .add(
    HttpApiEndpoint.del("removeSender", "/api/plugins/:id/senders/:channelId/:senderId")
      .setPath(SenderPath)
      .addSuccess(Schema.Struct({ removed: Schema.String }))
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire)
      .annotate(OpenApi.Summary, "Take an approved sender off a channel's list"),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Plugins (Bearer token)") {}
