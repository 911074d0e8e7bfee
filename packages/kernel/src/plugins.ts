/**
 * @aide/kernel/plugins — plugins: the catalogue, manifests, the loader and NoPlugins.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */

export * as NoPlugins from "./plugins/loader/NoPlugins.js"
export * as PluginLoader from "./plugins/loader/PluginLoader.js"
export * as PluginCatalog from "./plugins/PluginCatalog.js"
export * as PluginManifest from "./plugins/PluginManifest.js"
