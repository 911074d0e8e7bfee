import { Schema } from "effect"
import { WebhookVerification } from "../../channels/gateway/ChannelContract.js"

/** The `init` answer of a plugin process, decoded and bounded before the host trusts it. */

const text = (max: number) => Schema.String.pipe(Schema.maxLength(max))
const many = <A, I, R>(item: Schema.Schema<A, I, R>, max: number) => Schema.Array(item).pipe(Schema.maxItems(max))
const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const ToolDescription = Schema.Struct({
  entry: text(1_000),
  id: text(200),
  name: text(200),
  description: text(10_000),
  parameters: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
})

export const AgentDescription = Schema.Struct({
  entry: text(1_000),
  id: text(200),
  name: text(200),
  description: text(10_000),
  instructions: text(100_000),
  model: optional(Schema.Struct({ provider: text(100), model: text(200) })),
  useTools: optional(many(text(300), 200)),
})

export const ChannelDescription = Schema.Struct({
  entry: text(1_000),
  id: text(200),
  name: text(200),
  webhook: Schema.NullOr(WebhookVerification),
  realtime: Schema.Boolean,
  send: Schema.Boolean,
  notify: Schema.Boolean,
})

export const PluginDescription = Schema.Struct({
  tools: many(ToolDescription, 500),
  agents: many(AgentDescription, 100),
  channels: many(ChannelDescription, 50),
  alerts: many(Schema.Struct({ level: Schema.Literal("info", "warning", "error"), message: text(4_000) }), 500),
})
export type PluginDescription = typeof PluginDescription.Type
export type ToolDescription = typeof ToolDescription.Type
export type AgentDescription = typeof AgentDescription.Type
export type ChannelDescription = typeof ChannelDescription.Type

export const decode = Schema.decodeUnknown(PluginDescription, { onExcessProperty: "ignore" })
