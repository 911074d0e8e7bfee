import * as Crypto from "node:crypto"
import * as Path from "node:path"
import { Effect, Layer, Redacted } from "effect"
import * as AccessTokens from "./auth/AccessTokens.js"
import * as AuthConfig from "./auth/AuthConfig.js"
import * as PasswordHasher from "./auth/PasswordHasher.js"
import * as SigningSecret from "./auth/SigningSecret.js"
import * as StreamHub from "./chat/StreamHub.js"
import * as TitleGenerator from "./chat/TitleGenerator.js"
import * as AppConfig from "./config/AppConfig.js"
import * as Ids from "./ids/Ids.js"
import type { KernelOptions, KernelServices } from "./kernel/KernelOptions.js"
import { requireDataDir } from "./kernel/KernelOptionsError.js"
import { services } from "./kernel/services.js"
import { storesLayer } from "./kernel/stores.js"
import * as ModelRegistry from "./models/ModelRegistry.js"
import * as RateLimiter from "./ratelimit/RateLimiter.js"
import type { StorageError } from "./storage/StorageError.js"

export type { KernelOptions, KernelServices, StoreOptions } from "./kernel/KernelOptions.js"
export { KernelOptionsError } from "./kernel/KernelOptionsError.js"
export type {
  AgentStepLayer,
  AuthLayer,
  InboxLayer,
  McpRegistryLayer,
  MemoryLayer,
  PluginLoaderLayer,
  SchedulerLayer,
  ServiceRequirements,
  Services,
  ServicesOptions,
} from "./kernel/ServiceOptions.js"
export { services } from "./kernel/services.js"

export type KernelError = StorageError | SigningSecret.SigningSecretError

/**
 * The access-token key: given, or kept in `<dataDir>/jwt-secret`. With an `auth` Layer and
 * neither, no token of Aide's is ever issued, so a key of this process alone will do.
 */
const signingSecret = (options: Pick<KernelOptions, "signingSecret" | "dataDir" | "auth">) => {
  if (options.signingSecret !== undefined) return Effect.succeed(options.signingSecret)
  if (options.dataDir === undefined && Layer.isLayer(options.auth)) {
    return Effect.sync(() => Redacted.make(new Uint8Array(Crypto.randomBytes(32))))
  }
  const dataDir = requireDataDir(options.dataDir, "the generated signing secret", "`signingSecret` (≥ 32 bytes)")
  return SigningSecret.loadOrCreate(Path.join(dataDir, "jwt-secret"))
}

/**
 * The default composition of the kernel: `services` over the SQL stores (SQLite in `dataDir`),
 * argon2id, in-memory rate limits and streams. Every Tag the services require, and each service
 * an embedder may want to replace, has an option; what you give is the one the services use.
 * Options that cannot make a kernel throw `KernelOptionsError` here, before anything is built.
 *
 * @example
 * const kernel = Kernel.layer({ dataDir: "./.aide", threads: myThreadsLayer, recallIndex: RecallIndex.layerEmpty })
 * const program = Effect.flatMap(Auth.Auth, (auth) => auth.isSetup)
 * Effect.runPromise(Effect.provide(program, kernel))
 */
export const layer = <SchedulerExtra = never>(
  options: KernelOptions<SchedulerExtra>,
): Layer.Layer<KernelServices | SchedulerExtra, KernelError> => {
  const ids = options.ids ?? Ids.layer
  const authConfig = AuthConfig.layer(
    Layer.isLayer(options.auth) ? {} : (options.auth as Partial<AuthConfig.AuthSettings>),
  )
  const accessTokens = (
    options.accessTokens ??
    Layer.unwrapEffect(Effect.map(signingSecret(options), (key) => AccessTokens.layer({ secret: key })))
  ).pipe(Layer.provide(authConfig))
  const modelRegistry = options.modelRegistry ?? ModelRegistry.layer({ env: options.env ?? {} })
  const stores = storesLayer(options, ids)
  // Titles read the operator model from the config: the same `AppConfig.layer` the services
  // build (Layers are memoized by reference), so there is one config service.
  const titles = (options.titles ?? TitleGenerator.layerModel).pipe(Layer.provide(AppConfig.layer))
  const mechanisms = Layer.mergeAll(
    accessTokens,
    options.passwordHasher ?? PasswordHasher.layer,
    options.rateLimiter ?? RateLimiter.layerMemory,
    options.streamHub ?? StreamHub.layerMemory(),
    modelRegistry,
    options.leases ?? Layer.empty,
    options.threadClaims ?? Layer.empty,
    options.replicaSignals ?? Layer.empty,
  )
  // SQLite in the data dir is this process's alone: a claim found at start is a crashed run's.
  const releaseClaimsAtStart = options.releaseClaimsAtStart ?? options.storage === undefined
  const memory = Layer.isLayer(options.memory) ? options.memory : { releaseClaimsAtStart, ...options.memory }
  const { dataDir } = options
  const plugins = {
    ...(dataDir === undefined ? {} : { pluginsDir: Path.join(dataDir, "plugins") }),
    env: options.env ?? {},
    ...options.plugins,
  }
  // Sandboxed plugins' modules are compiled once, when enabled, into the data dir (Precompile.ts);
  // without one, each compartment process compiles them itself.
  const pluginLoader = Layer.isLayer(options.pluginLoader)
    ? options.pluginLoader
    : {
        ...(dataDir === undefined ? {} : { modulesDir: Path.join(dataDir, "cache", "plugin-modules") }),
        ...options.pluginLoader,
      }
  const mcp = { env: options.env ?? {}, ...options.mcp }
  return services<SchedulerExtra>({ ...options, memory, plugins, pluginLoader, mcp }).pipe(
    Layer.provideMerge(titles),
    Layer.provideMerge(mechanisms),
    Layer.provideMerge(stores),
  )
}

/** The kernel with every store in memory, no file opened: see `KernelMemory.ts`. */
export { type KernelMemoryOptions, layerMemory } from "./KernelMemory.js"
