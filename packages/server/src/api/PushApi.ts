import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

const bounded = (name: string, max: number) =>
  Schema.String.pipe(Schema.minLength(1), Schema.maxLength(max)).annotations({
    message: () => ({ message: `${name} must be a string of 1 to ${max} characters`, override: true }),
  })

/** The browser's `PushSubscription.toJSON()`; `expirationTime` and unknown fields are ignored. */
export const PushSubscriptionBody = Schema.Struct({
  endpoint: bounded("endpoint", 1024),
  keys: Schema.Struct({ p256dh: bounded("keys.p256dh", 128), auth: bounded("keys.auth", 64) }).annotations({
    message: () => ({ message: "keys must be an object with p256dh and auth", override: true }),
  }),
}).annotations({ identifier: "PushSubscription", message: () => "request body must be a JSON object" })

export const PushEndpointBody = Schema.Struct({ endpoint: bounded("endpoint", 1024) }).annotations({
  identifier: "PushEndpoint",
  message: () => "request body must be a JSON object with endpoint",
})

export const VapidPublicKey = Schema.Struct({
  publicKey: Schema.String.annotations({ description: "base64url P-256 point: the `applicationServerKey`" }),
}).annotations({ identifier: "VapidPublicKey" })

/** Web Push subscriptions of the owner's browsers (Bearer token; not in SPEC, see docs/api-decisions.md). */
export class PushApi extends HttpApiGroup.make("push")
  .add(
    HttpApiEndpoint.get("vapidPublicKey", "/api/push/vapid-public-key")
      .annotate(OpenApi.Summary, "The server's VAPID public key, to subscribe with")
      .addSuccess(VapidPublicKey),
  )
  .add(
    HttpApiEndpoint.post("subscribe", "/api/push/subscriptions")
      .annotate(OpenApi.Summary, "Subscribe a browser to notifications (its PushSubscription JSON)")
      .setPayload(PushSubscriptionBody)
      .addSuccess(Schema.Struct({ subscribed: Schema.Literal(true) }), { status: 201 })
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire),
  )
  .add(
    HttpApiEndpoint.del("unsubscribe", "/api/push/subscriptions")
      .annotate(OpenApi.Summary, "Unsubscribe a browser, by its endpoint")
      .setPayload(PushEndpointBody)
      .addSuccess(Schema.Struct({ unsubscribed: Schema.Literal(true) }))
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Web Push: browser notifications for inbox messages and approvals (Bearer token)") {}
