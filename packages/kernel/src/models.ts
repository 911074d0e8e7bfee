/**
 * @aide/kernel/models — model providers: the ModelRegistry service, the provider catalogue, OpenAI-compatible providers, model errors.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */

export * as ConnectionCipher from "./models/connections/ConnectionCipher.js"
export * as ConnectionStore from "./models/connections/ConnectionStore.js"
export * as ProviderConnections from "./models/connections/ProviderConnections.js"
export * as ModelErrors from "./models/ModelErrors.js"
export * as ModelRegistry from "./models/ModelRegistry.js"
export * as OpenAICompatible from "./models/OpenAICompatible.js"
export * as Providers from "./models/Providers.js"
