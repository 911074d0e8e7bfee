import type * as Sdk from "@aide/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as Contract from "../src/channels/gateway/ChannelContract.js"

// The channel contract is written twice: `@aide/plugin` for authors (plain types, no runtime
// dependency) and ChannelContract.ts for the kernel (Schemas that check what crosses from a
// plugin process). Each shape converts both ways, so the typecheck fails when one side drifts
// (the way plugin-manifest.test.ts checks the manifest).
/**
 * The kernel's Schemas also accept an explicit `undefined` in optional fields (the SDK's exact
 * optional types do not); nothing but JSON crosses from a plugin, so that difference never shows.
 */
type Exact<T> = T extends ReadonlyArray<infer E>
  ? ReadonlyArray<Exact<E>>
  : T extends object
    ? { readonly [K in keyof T]: Exact<Exclude<T[K], undefined>> }
    : T

export const parity = {
  secretSource: (value: Sdk.SecretSource): Contract.SecretSource => value,
  secretSourceBack: (value: Exact<Contract.SecretSource>): Sdk.SecretSource => value,
  verification: (value: Sdk.WebhookVerification): Contract.WebhookVerification => value,
  verificationBack: (value: Exact<Contract.WebhookVerification>): Sdk.WebhookVerification => value,
  inbound: (value: Sdk.InboundMessage): Contract.InboundMessage => value,
  inboundBack: (value: Exact<Contract.InboundMessage>): Sdk.InboundMessage => value,
  file: (value: Sdk.InboundFile): typeof Contract.InboundFile.Type => value,
  fileBack: (value: Exact<typeof Contract.InboundFile.Type>): Sdk.InboundFile => value,
  approval: (value: Sdk.PendingApproval): Contract.PendingApproval => value,
  approvalBack: (value: Contract.PendingApproval): Sdk.PendingApproval => value,
  outgoing: (value: Sdk.OutgoingMessage): Contract.OutgoingMessage => value,
  outgoingBack: (value: Contract.OutgoingMessage): Sdk.OutgoingMessage => value,
  notification: (value: Sdk.Notification): Contract.Notification => value,
  notificationBack: (value: Contract.Notification): Sdk.Notification => value,
  request: (value: Sdk.WebhookRequest): Contract.WebhookRequest => value,
  requestBack: (value: Contract.WebhookRequest): Sdk.WebhookRequest => value,
  response: (value: Sdk.WebhookResponse): Contract.WebhookResponse => value,
  responseBack: (value: Exact<Contract.WebhookResponse>): Sdk.WebhookResponse => value,
}

const decodes = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
  Either.isRight(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(value))

describe("the channel contract", () => {
  it("what an author writes with @aide/plugin's types passes the kernel's checks", () => {
    const verification: Sdk.WebhookVerification = {
      kind: "hmac-sha256",
      header: "x-signature",
      secret: { config: "secret" },
      encoding: "hex",
      prefix: "sha256=",
      timestamp: { header: "x-timestamp", toleranceSeconds: 300 },
    }
    const inbound: Sdk.InboundMessage = {
      conversationId: "42",
      text: "hello",
      files: [{ mediaType: "text/plain", url: "data:text/plain;base64,aGk=", filename: "hi.txt" }],
      sender: { id: "7", name: "Ada" },
    }
    const response: Sdk.WebhookResponse = { status: 202, headers: { "content-type": "text/plain" }, body: "ok" }
    expect(decodes(Contract.WebhookVerification, verification)).toBe(true)
    expect(decodes(Contract.WebhookVerification, { kind: "token", header: "x-token", secret: { env: "T" } })).toBe(true)
    expect(decodes(Contract.InboundMessage, inbound)).toBe(true)
    expect(decodes(Contract.WebhookResponse, response)).toBe(true)
  })

  it("refuses what the SDK's types do not allow", () => {
    expect(decodes(Contract.WebhookVerification, { kind: "md5", header: "x", secret: { env: "T" } })).toBe(false)
    expect(decodes(Contract.InboundMessage, { conversationId: "1" })).toBe(false)
    expect(decodes(Contract.WebhookResponse, { status: "ok" })).toBe(false)
  })
})
