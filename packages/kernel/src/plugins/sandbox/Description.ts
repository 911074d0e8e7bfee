import { Effect, Schema } from "effect"
import { WebhookVerification } from "../../channels/gateway/ChannelContract.js"
import { depthAtMost } from "./Inbound.js"

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

/** A tool's `parameters` past these bounds is left out (with an alert): it goes into every model request. */
export const maxParametersDepth = 64
export const maxParametersBytes = 64 * 1024

const parametersProblem = (parameters: unknown): string | undefined => {
  if (!depthAtMost(parameters, maxParametersDepth)) return `nests deeper than ${maxParametersDepth} levels`
  const bytes = Buffer.byteLength(JSON.stringify(parameters))
  return bytes > maxParametersBytes ? `is ${bytes} bytes, more than ${maxParametersBytes}` : undefined
}

/** Tools whose schema is out of bounds become alerts: one bad tool never costs the others. */
const boundTools = (description: PluginDescription): PluginDescription => {
  const alerts = [...description.alerts]
  const tools = description.tools.filter((tool) => {
    const problem = parametersProblem(tool.parameters)
    if (problem !== undefined)
      alerts.push({ level: "error", message: `${tool.entry}: tool ${tool.id}: its parameters schema ${problem}` })
    return problem === undefined
  })
  return tools.length === description.tools.length ? description : { ...description, tools, alerts }
}

export const decode = (value: unknown) =>
  Schema.decodeUnknown(PluginDescription, { onExcessProperty: "ignore" })(value).pipe(Effect.map(boundTools))
