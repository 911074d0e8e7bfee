import { Schema } from "effect"
import { ConfigFieldDescriptor, Permissions } from "./PluginManifest.js"

/** SPEC "Plugin" (element of `GET /api/plugins`), field by field. */

export const Alert = Schema.Struct({
  level: Schema.Literal("info", "warning", "error"),
  message: Schema.String,
}).annotations({ identifier: "Alert" })
export type Alert = typeof Alert.Type

export const ToolManifest = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
}).annotations({ identifier: "ToolManifest" })

const nullable = Schema.NullOr(Schema.String)

export const PluginView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: nullable,
  author: nullable,
  icon: nullable,
  version: nullable,
  homepage: nullable,
  repository: nullable,
  license: nullable,
  envVars: Schema.Array(Schema.Struct({ name: Schema.String, required: Schema.Boolean, configured: Schema.Boolean })),
  envConfigured: Schema.Boolean,
  configFields: Schema.Array(ConfigFieldDescriptor),
  enabled: Schema.Boolean,
  config: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  provides: Schema.Struct({
    tools: Schema.optional(
      Schema.Struct({
        toolIds: Schema.Array(Schema.String),
        tools: Schema.Array(ToolManifest),
        sandbox: Schema.Literal("compartment", "host"),
        permissions: Schema.optional(Permissions),
        requireApproval: Schema.Boolean,
        alerts: Schema.Array(Alert),
      }),
    ),
    agents: Schema.optional(
      Schema.Struct({
        agentIds: Schema.Array(Schema.String),
        agents: Schema.Array(Schema.Unknown),
        alerts: Schema.Array(Alert),
      }),
    ),
    channels: Schema.optional(
      Schema.Struct({
        loaded: Schema.Boolean,
        webhook: Schema.NullOr(Schema.Boolean),
        realtime: Schema.NullOr(Schema.Boolean),
        webhookPath: nullable,
        /**
         * Beyond SPEC: the realtime connection, when a loaded channel keeps one. `reconnecting`
         * with `reason` is a channel that keeps failing (docs/api-decisions.md).
         */
        connection: Schema.optional(
          Schema.Struct({
            state: Schema.Literal("standby", "connected", "reconnecting"),
            reason: nullable,
            failures: Schema.Number,
            since: Schema.String,
          }),
        ),
      }),
    ),
  }),
  validationErrors: Schema.Array(Schema.String),
}).annotations({ identifier: "Plugin" })
export type PluginView = typeof PluginView.Type
