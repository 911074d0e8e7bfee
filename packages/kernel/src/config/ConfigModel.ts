import { Schema } from "effect"
import * as Problems from "../validation/Problems.js"
import { NonEmptyString, TimeZone } from "./ConfigValues.js"
import { McpEndpointConfig, mcpEndpointDefaults } from "./McpEndpointConfig.js"
import { MemoryConfig, memoryDefaults } from "./MemoryConfig.js"
import * as MergePatch from "./MergePatch.js"
import { HeartbeatConfig, ScheduledTaskConfig } from "./ScheduleConfig.js"
import { field, optional, section } from "./SchemaFields.js"

/**
 * The application config document of SPEC "Config": one JSON object, sections below. The
 * stored document holds only what the owner set; the resolved one is `defaults` deep-merged
 * with it and always decodes with `AppConfigDocument`.
 */

/**
 * A provider id. Which ids exist is the `ModelRegistry`'s to say (an embedder adds its own), so
 * `AppConfig` checks it against the registry in use (`unknownProvider`), not this schema.
 */
export const ProviderId = NonEmptyString.annotations({ description: "the id of a provider of GET /api/models" })

/** The problem reported for a provider the registry does not know. */
export const unknownProvider = (provider: string, known: ReadonlyArray<string>, path = "models.operator.provider") =>
  `${path}: unknown provider ${JSON.stringify(provider)} (known: ${known.join(", ")})`

export const OperatorModel = Schema.Struct({
  provider: field(ProviderId, "The model's provider"),
  model: field(NonEmptyString, "The provider's model id, e.g. gpt-4.1-mini"),
  temperature: optional(
    Schema.Number.pipe(Schema.between(0, 2, { message: () => "must be a number between 0 and 2" })),
    "Sampling temperature, 0 to 2; the provider's default when absent",
  ),
  maxTokens: optional(
    Schema.Number.pipe(
      Schema.int({ message: () => "must be a positive integer" }),
      Schema.positive({ message: () => "must be a positive integer" }),
    ),
    "Most tokens an answer may take; the provider's default when absent",
  ),
}).annotations({ identifier: "OperatorModel", message: () => "must be an object" })

/** Plugin-specific fields are checked by the plugin against its declared configFields. */
export const PluginConfig = Schema.Struct(
  {
    enabled: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
      description: "Whether the plugin is loaded; default false",
    }),
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown }),
).annotations({ identifier: "PluginConfig", message: () => "must be an object" })

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/** Names only: the values are read from the host's environment, never stored. */
const EnvVarName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: (issue) => `${JSON.stringify(issue.actual)} is not an environment variable name`,
  }),
)

/** The fields of an MCP server's config, each optional (shared by the config and API answers). */
export const McpServerConfigFields = {
  command: optional(NonEmptyString, "stdio: the program to run (exactly one of command and url)"),
  args: optional(Schema.Array(Schema.String), "stdio: its arguments"),
  url: optional(
    Schema.String.pipe(Schema.filter((value) => isHttpUrl(value) || "must be an http(s) URL")),
    "HTTP: the server's http(s) URL (exactly one of command and url)",
  ),
  enabled: optional(Schema.Boolean, "Whether it is connected; default true"),
  name: optional(Schema.String, "Display name; default the id"),
  env: optional(Schema.Array(EnvVarName), "stdio: names of host environment variables the process gets"),
  requireApproval: optional(Schema.Boolean, "Whether each tool call waits for the owner's approval; default true"),
  /** Secret values: shown redacted by the API. */
  headers: optional(
    Schema.Record({ key: Schema.String, value: Schema.String }),
    "HTTP: static headers sent to the server's own origin; values are secrets, shown redacted",
  ),
  oauth: optional(Schema.Boolean, "HTTP: authorize with OAuth (the owner completes it in a browser)"),
  /** stdio only: working directory of the process; default the user's home. */
  cwd: optional(
    Schema.String.pipe(
      Schema.filter(
        (value) => /^(~$|~\/|\/|[A-Za-z]:[\\/])/.test(value) || "must be an absolute path (or start with ~/)",
      ),
    ),
    "stdio: working directory, absolute or under ~/; default the home directory",
  ),
}

/** SPEC "MCP server config": exactly one of `command` (stdio) or `url` (HTTP). */
export const McpServerConfig = Schema.Struct(McpServerConfigFields)
  .annotations({ message: () => "must be an object" })
  .pipe(
    Schema.filter((server) => {
      if (server.command !== undefined && server.url !== undefined) {
        return "has both command and url: set exactly one (send null for the other)"
      }
      if (server.command === undefined && server.url === undefined) return "needs a command (stdio) or a url (http)"
      if (server.cwd !== undefined && server.command === undefined)
        return "has a cwd but no command (cwd is for stdio servers; send null for it)"
      return true
    }),
  )
  .annotations({ identifier: "McpServerConfig" })
export type McpServerConfig = typeof McpServerConfig.Type

/**
 * How deep the resolved document may nest (objects and arrays, the document itself being level
 * 1). The fixed sections need 5; the rest is room for plugin fields. A bound keeps every walk
 * of the document (schema decoding, JSON encoding, plugins reading their fields) within the stack.
 */
export const maxDepth = 32

export const AppConfigDocument = Schema.Struct({
  identity: field(section({ name: field(NonEmptyString, "What the assistant calls itself") }), "Who the assistant is"),
  timezone: field(TimeZone, "IANA time zone of schedules and of the time the assistant is told"),
  personality: field(
    section({ systemPrompt: field(Schema.String, "The system prompt of every conversation") }),
    "How the assistant behaves",
  ),
  models: field(section({ operator: field(OperatorModel, "The model that answers chats") }), "Models in use"),
  plugins: field(
    Schema.Record({ key: Schema.String, value: PluginConfig }).annotations({
      message: () => "must be an object keyed by plugin id",
    }),
    "Per plugin id: enabled, and the fields the plugin declares",
  ),
  memory: field(MemoryConfig, "Memory: working, observational, semantic recall (docs/memory.md)"),
  schedule: field(
    section({
      enabled: field(Schema.Boolean, "Master switch: off, no task or heartbeat runs"),
      tasks: field(
        Schema.Array(ScheduledTaskConfig).pipe(
          Schema.filter((tasks) => {
            const seen = new Set<string>()
            for (const task of tasks) {
              if (seen.has(task.id)) return `two tasks have the id ${task.id}`
              seen.add(task.id)
            }
            return true
          }),
        ),
        "Scheduled tasks (also edited through /api/schedule)",
      ),
      heartbeat: optional(HeartbeatConfig, "The heartbeat (also edited through /api/schedule/heartbeat)"),
    }),
    "Scheduled tasks and the heartbeat",
  ),
  onboardingComplete: field(Schema.Boolean, "Set once the first-run wizard is done"),
  mcpServers: field(
    Schema.Record({ key: Schema.String, value: McpServerConfig }).annotations({
      message: () => "must be an object keyed by server id",
    }),
    "MCP servers by id",
  ),
  mcpServer: field(McpEndpointConfig, "Aide's own MCP endpoint /mcp: on or off, and its tools (docs/mcp-server.md)"),
}).annotations({ identifier: "AppConfig" })
export type AppConfigDocument = typeof AppConfigDocument.Type

const configPatch = MergePatch.schemaOf(AppConfigDocument)
const configPatchProblems = MergePatch.problemsOf(configPatch)

/**
 * PATCH /api/config: a JSON Merge Patch of the document (RFC 7396). Every key is optional and
 * `null` deletes one (its default comes back); values keep their checks. Unknown keys pass
 * (`null` on one deletes nothing); they, rules across keys (a server's command or url) and the
 * resolved whole are checked by `AppConfig.patch`, which words every problem as this schema
 * does when a patch does not decode: `path: reason`, joined with `; `.
 */
export const ConfigPatch = configPatch.annotations({
  identifier: "ConfigPatch",
  description:
    "Partial config, deep-merged into the stored one; null deletes a key (its default comes back). " +
    "A header value sent back as the redacted placeholder keeps the stored secret.",
  parseOptions: { errors: "all", onExcessProperty: "preserve" },
  message: Problems.worded((input) =>
    MergePatch.isJsonObject(input)
      ? Problems.describeIssues(configPatchProblems(input), "config").join("; ")
      : "request body must be a JSON object",
  ),
})
export type ConfigPatch = typeof ConfigPatch.Type

/** What a fresh install resolves to (documented in docs/configuration.md). */
export const defaults: typeof AppConfigDocument.Encoded = {
  identity: { name: "Aide" },
  timezone: "UTC",
  personality: {
    systemPrompt:
      "You are Aide, a helpful personal assistant. Be concise, accurate and friendly. " +
      "Ask when a request is ambiguous, and say so when you do not know.",
  },
  models: { operator: { provider: "openai", model: "gpt-4.1-mini" } },
  plugins: {},
  memory: memoryDefaults,
  schedule: { enabled: true, tasks: [] },
  onboardingComplete: false,
  mcpServers: {},
  mcpServer: mcpEndpointDefaults,
}

/** What `GET /api/config` shows instead of a secret; sent back in a PATCH, it keeps the stored value. */
export const redactedSecret = "••••••"

/** The document with every secret (MCP server header values) replaced by `redactedSecret`. */
export const redactSecrets = (config: AppConfigDocument): AppConfigDocument => ({
  ...config,
  mcpServers: Object.fromEntries(
    Object.entries(config.mcpServers).map(([id, server]) => [
      id,
      server.headers === undefined
        ? server
        : {
            ...server,
            headers: Object.fromEntries(Object.keys(server.headers).map((name) => [name, redactedSecret])),
          },
    ]),
  ),
})
