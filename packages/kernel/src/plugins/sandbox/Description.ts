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
const maxParametersDepth = 64
const maxParametersBytes = 64 * 1024

const parametersProblem = (parameters: unknown): string | undefined => {
  if (!depthAtMost(parameters, maxParametersDepth)) return `nests deeper than ${maxParametersDepth} levels`
  const bytes = Buffer.byteLength(JSON.stringify(parameters))
  return bytes > maxParametersBytes ? `is ${bytes} bytes, more than ${maxParametersBytes}` : undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** Deepest an answer nests once the tools' `parameters` are set aside (they are bounded above). */
const maxAnswerDepth = 24

/**
 * Before the Schema sees the answer: tools whose schema is out of bounds are set aside as alerts
 * (one bad tool never costs the others), and an answer nested deeper than any description is
 * refused. Schema's error message quotes the value it rejects, recursively: it must never be
 * asked to quote a value thousands of levels deep.
 */
const setAside = (value: unknown): { readonly value: unknown; readonly alerts: Array<Alert> } | string => {
  if (!isRecord(value) || !Array.isArray(value.tools)) return { value, alerts: [] }
  const alerts: Array<Alert> = []
  const tools = value.tools.filter((tool: unknown) => {
    if (!isRecord(tool)) return true
    const problem = isRecord(tool.parameters) ? parametersProblem(tool.parameters) : "is not an object"
    if (problem === undefined) return true
    const name = (field: unknown) => (typeof field === "string" ? field.slice(0, 200) : "?")
    alerts.push({
      level: "error",
      message: `${name(tool.entry)}: tool ${name(tool.id)}: its parameters schema ${problem}`,
    })
    return false
  })
  const shallow = tools.map((tool: unknown) => (isRecord(tool) ? { ...tool, parameters: {} } : tool))
  if (!depthAtMost({ ...value, tools: shallow }, maxAnswerDepth)) {
    return `the plugin's description nests deeper than ${maxAnswerDepth} levels`
  }
  return { value: { ...value, tools }, alerts }
}

type Alert = PluginDescription["alerts"][number]

export const decode = (value: unknown): Effect.Effect<PluginDescription, Error> => {
  const checked = setAside(value)
  if (typeof checked === "string") return Effect.fail(new Error(checked))
  return Schema.decodeUnknown(PluginDescription, { onExcessProperty: "ignore" })(checked.value).pipe(
    Effect.mapError((error) => new Error(`the plugin's description does not fit: ${error.message.slice(0, 2_000)}`)),
    Effect.map((description) =>
      checked.alerts.length === 0
        ? description
        : { ...description, alerts: [...description.alerts, ...checked.alerts] },
    ),
  )
}
