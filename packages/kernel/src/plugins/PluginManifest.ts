import * as Path from "node:path"
import { Schema } from "effect"

/**
 * `aide.plugin.json`, the manifest of a plugin (docs/plugins.md; JSON Schema in
 * docs/plugin-manifest.schema.json). Read and checked without running any of the plugin's code.
 */

const text = (max: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => "must be a non-empty string" }),
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
  )

const optionalText = (max: number, description: string) =>
  Schema.optionalWith(Schema.NullOr(text(max)), { exact: true }).annotations({ description })

/**
 * Ids appear in tool ids as `<pluginId>:<toolId>`: no colons, no spaces. They also name folders
 * (the precompiled modules' cache, `aide plugin dev`'s link): no slash or backslash, and never `.` or `..`
 * (the first character is a letter or a digit), so an id is always one path segment.
 */
export const pluginIdPattern = /^[a-z0-9][a-z0-9._-]{0,63}$/

/**
 * `parent/id`, or undefined when `id` is not a plugin id: every place an id names a folder goes
 * through this, so an id that did not come through the schema (a manifest the discovery could not
 * read names its plugin after the raw `id`) can never reach outside `parent`.
 */
export const folderOf = (parent: string, id: string): string | undefined =>
  pluginIdPattern.test(id) ? Path.join(parent, id) : undefined

export const PluginId = Schema.String.pipe(
  Schema.pattern(pluginIdPattern, {
    message: () => "must be 1–64 characters: lower-case letters, digits, '.', '_' or '-' (no colons)",
  }),
).annotations({ identifier: "PluginId" })

/** A path inside the plugin folder: relative, no `..` segment. */
const EntryPath = Schema.String.pipe(
  Schema.filter(
    (value) =>
      (value !== "" && !value.startsWith("/") && !/^[A-Za-z]:/.test(value) && !value.split(/[\\/]/).includes("..")) ||
      "must be a relative path inside the plugin folder (no '..')",
  ),
)

const EnvVarName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "must be an environment variable name" }),
)

export const ConfigFieldDescriptor = Schema.Struct({
  key: Schema.String.pipe(
    Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { message: () => "must be an identifier (letters, digits, _)" }),
  ),
  label: text(200),
  type: Schema.Literal("text", "number", "password", "enum", "boolean"),
  required: Schema.optionalWith(Schema.Boolean, { exact: true }),
  placeholder: Schema.optionalWith(Schema.String, { exact: true }),
  description: Schema.optionalWith(Schema.String, { exact: true }),
  options: Schema.optionalWith(
    Schema.Array(Schema.Struct({ value: Schema.String, label: Schema.optionalWith(Schema.String, { exact: true }) })),
    { exact: true },
  ),
})
  .pipe(
    Schema.filter(
      (field) =>
        field.type !== "enum" || (field.options !== undefined && field.options.length > 0) || "an enum needs options",
    ),
  )
  .annotations({ identifier: "ConfigFieldDescriptor" })
export type ConfigFieldDescriptor = typeof ConfigFieldDescriptor.Type

/** What a compartment-sandboxed tool may use (nothing unless declared). */
export const Permissions = Schema.Struct({
  time: Schema.optionalWith(Schema.Boolean, { exact: true }),
  random: Schema.optionalWith(Schema.Boolean, { exact: true }),
  env: Schema.optionalWith(Schema.Array(EnvVarName), { exact: true }),
  network: Schema.optionalWith(
    Schema.Array(
      Schema.String.pipe(
        Schema.pattern(/^((\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]{1,5})?|config:[A-Za-z_][A-Za-z0-9_]{0,63})$/i, {
          message: () =>
            "must be a host name, optionally starting with '*.' and ending with ':<port>', or config:<setting key>",
        }),
      ),
    ),
    { exact: true },
  ).annotations({
    description:
      "Hosts the brokered fetch, webSocket and connect may reach: `api.example.com`, `*.example.com` (subdomains), `imap.example.com:993` (that port only; `connect` needs a port), or `config:<key>`: the host (and port) the owner puts in the setting <key>",
  }),
  fs: Schema.optionalWith(Schema.Array(Schema.String.pipe(Schema.minLength(1))), { exact: true }),
}).annotations({ identifier: "Permissions" })
export type Permissions = typeof Permissions.Type

/**
 * A tool or an agent as the manifest declares it: listed by `GET /api/plugins` before any of the
 * plugin's code runs, and checked against what the entry's module exports once it is loaded.
 */
export const Declared = Schema.Struct({
  id: Schema.String.pipe(
    Schema.pattern(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/, {
      message: () => "must be 1–64 characters: letters, digits, '.', '_' or '-' (no colons)",
    }),
  ),
  name: text(200),
  description: Schema.optionalWith(text(2_000), { exact: true }),
}).annotations({ identifier: "Declared" })
export type Declared = typeof Declared.Type

const declarations = (what: string) =>
  Schema.optionalWith(Schema.Array(Declared).pipe(Schema.maxItems(100)), { exact: true }).annotations({
    description: `The ${what} the entry's module exports, as listed before the plugin is enabled`,
  })

export const ToolEntry = Schema.Struct({
  entry: EntryPath,
  sandbox: Schema.optionalWith(Schema.Literal("compartment", "host"), { exact: true }),
  permissions: Schema.optionalWith(Permissions, { exact: true }),
  requireApproval: Schema.optionalWith(Schema.Boolean, { exact: true }),
  tools: declarations("tools"),
})

export const AgentEntry = Schema.Struct({
  entry: EntryPath,
  useTools: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  model: Schema.optionalWith(Schema.Struct({ provider: text(100), model: text(200) }), { exact: true }),
  agents: declarations("agents"),
})

export const ChannelEntry = Schema.Struct({
  entry: EntryPath,
  sandbox: Schema.optionalWith(Schema.Literal("compartment", "host"), { exact: true }).annotations({
    description:
      "Where the channel's code runs: `host` (the default: full trust, as every channel before) or `compartment` (SES, reaching the network only through its context)",
  }),
  permissions: Schema.optionalWith(Permissions, { exact: true }).annotations({
    description: "What the channel may use: its `network` is the hosts of its context.fetch, webSocket and connect",
  }),
})

export const PluginManifest = Schema.Struct({
  manifestVersion: Schema.Literal(1),
  id: PluginId,
  name: text(100),
  description: optionalText(2_000, "What the plugin does"),
  author: optionalText(200, "Who made it"),
  icon: optionalText(2_000, "A URL or a path inside the plugin folder"),
  version: optionalText(100, "The plugin's own version"),
  homepage: optionalText(2_000, "Its home page"),
  repository: optionalText(2_000, "Its source repository"),
  license: optionalText(100, "An SPDX license identifier"),
  aide: Schema.optionalWith(text(100), { exact: true }).annotations({
    description: "semver range of the Aide versions it supports (enforced)",
  }),
  envVars: Schema.optionalWith(
    Schema.Array(Schema.Struct({ name: EnvVarName, required: Schema.optionalWith(Schema.Boolean, { exact: true }) })),
    { exact: true },
  ),
  configFields: Schema.optionalWith(
    Schema.Array(ConfigFieldDescriptor).pipe(
      Schema.filter((fields) => {
        const reserved = fields.find((field) => ["enabled", "tools", "agents", "allowEnv"].includes(field.key))
        return reserved === undefined || `"${reserved.key}" is Aide's own setting of every plugin, not a field key`
      }),
    ),
    { exact: true },
  ),
  provides: Schema.Struct({
    tools: Schema.optionalWith(Schema.Array(ToolEntry), { exact: true }),
    agents: Schema.optionalWith(Schema.Array(AgentEntry), { exact: true }),
    channels: Schema.optionalWith(Schema.Array(ChannelEntry), { exact: true }),
  }).pipe(
    // Declared ids name tools `<pluginId>:<id>`: one id declared twice could never match the code.
    Schema.filter((provides) => {
      const twice = (ids: ReadonlyArray<string>) => ids.find((id, index) => ids.indexOf(id) !== index)
      const tool = twice((provides.tools ?? []).flatMap((entry) => (entry.tools ?? []).map((item) => item.id)))
      const agent = twice((provides.agents ?? []).flatMap((entry) => (entry.agents ?? []).map((item) => item.id)))
      if (tool !== undefined) return `tool id "${tool}" is declared twice`
      return agent === undefined || `agent id "${agent}" is declared twice`
    }),
  ),
}).annotations({ identifier: "PluginManifest" })
export type PluginManifest = typeof PluginManifest.Type
