/**
 * @aide/kernel/config — the config document: its schema (ConfigModel), the AppConfig service, the config store and its Layers.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as AppConfig from "./config/AppConfig.js"
export * as ConfigErrors from "./config/ConfigErrors.js"
export * as ConfigModel from "./config/ConfigModel.js"
export * as ConfigStore from "./config/ConfigStore.js"
export * as MemoryConfig from "./config/MemoryConfig.js"
export * as SqlConfigStore from "./config/SqlConfigStore.js"
