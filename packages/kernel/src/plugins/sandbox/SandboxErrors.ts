import { Schema } from "effect"

/** Why a call into a plugin's process failed; `message` says it plainly (it reaches the model). */
export class PluginCallError extends Schema.TaggedError<PluginCallError>()("PluginCallError", {
  pluginId: Schema.String,
  method: Schema.String,
  /** timeout, crashed, output (too large), restarting, failed (the plugin's own error), cancelled, protocol. */
  reason: Schema.Literal("timeout", "crashed", "output", "restarting", "failed", "cancelled", "protocol"),
  message: Schema.String,
}) {}

/** The plugin's process could not be started or did not answer `init`. */
export class PluginStartError extends Schema.TaggedError<PluginStartError>()("PluginStartError", {
  pluginId: Schema.String,
  message: Schema.String,
}) {}
