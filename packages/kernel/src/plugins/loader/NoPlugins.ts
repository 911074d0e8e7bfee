import { Effect, Layer } from "effect"
import { PluginLoader } from "./PluginLoader.js"

/**
 * A `PluginLoader` that starts no plugin: no plugin code runs and no process is spawned, whatever
 * the config enables. `GET /api/plugins` lists none. The catalog still reads the folders given in
 * `plugins` (none without `dataDir`), so a config naming a plugin keeps validating.
 *
 * @example
 * Kernel.layer({ dataDir, pluginLoaderLayer: NoPlugins.layer })
 */
export const layer: Layer.Layer<PluginLoader> = Layer.succeed(
  PluginLoader,
  PluginLoader.of({ list: Effect.succeed([]), state: () => Effect.succeed(undefined) }),
)
