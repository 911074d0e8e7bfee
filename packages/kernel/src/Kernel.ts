import * as Crypto from "node:crypto"
import * as Os from "node:os"
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
import type { WithScheduler } from "./kernel/ServiceOptions.js"
import { services } from "./kernel/services.js"
import { type StoreDefaults, storesLayer } from "./kernel/stores.js"
import * as ProviderConnections from "./models/connections/ProviderConnections.js"
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
  WithScheduler,
} from "./kernel/ServiceOptions.js"
export { services } from "./kernel/services.js"

export type KernelError = StorageError | SigningSecret.SigningSecretError

/**
 * The access-token key: given, or kept in `<dataDir>/jwt-secret`. With an `auth` Layer and
 * neither, no token of Aide's is ever issued, so a key of this process alone will do.
 */
const signingSecret = (options: Pick<KernelOptions, "signingSecret" | "dataDir" | "authLayer">) => {
  if (options.signingSecret !== undefined) return Effect.succeed(options.signingSecret)
  if (options.dataDir === undefined && options.authLayer !== undefined) {
    return Effect.sync(() => Redacted.make(new Uint8Array(Crypto.randomBytes(32))))
  }
  const dataDir = requireDataDir(options.dataDir, "the generated signing secret", "`signingSecret` (≥ 32 bytes)")
  return SigningSecret.loadOrCreate(Path.join(dataDir, "jwt-secret"))
}

/**
 * The secret provider connections are sealed under (a key derived from it): the signing secret,
 * or, for a kernel with neither one nor a data dir (its stores in memory), one of this process.
 */
const connectionSecret = (options: Pick<KernelOptions, "signingSecret" | "dataDir" | "authLayer">) =>
  options.signingSecret === undefined && options.dataDir === undefined
    ? Effect.sync(() => Redacted.make(new Uint8Array(Crypto.randomBytes(32))))
    : signingSecret(options)

/**
 * The default composition of the kernel: `services` over the SQL stores (SQLite in `dataDir`),
 * argon2id, in-memory rate limits and streams. Every Tag the services require, and each service
 * an embedder may want to replace, has an option; what you give is the one the services use.
 * Options that cannot make a kernel throw `KernelOptionsError` here, before anything is built.
 * The type provides whatever your Layers provide besides (e.g. `ManualScheduler`).
 *
 * @example
 * const kernel = Kernel.layer({ dataDir: "./.aide", threads: myThreadsLayer, recallIndex: RecallIndex.layerEmpty })
 * const program = Effect.flatMap(Auth.Auth, (auth) => auth.isSetup)
 * Effect.runPromise(Effect.provide(program, kernel))
 */
export function layer<Extra>(
  options: WithScheduler<KernelOptions, Extra>,
): Layer.Layer<KernelServices | Extra, KernelError>
export function layer(options: KernelOptions): Layer.Layer<KernelServices, KernelError>
export function layer(options: KernelOptions): Layer.Layer<KernelServices, KernelError> {
  return compose(options, "sql")
}

/** `Kernel.layerMemory`'s options: `Kernel.layer`'s without a connection (no store is SQL). */
export interface KernelMemoryOptions extends Omit<KernelOptions, "storage"> {
  /**
   * Only where plugins are found (`<dataDir>/plugins`): nothing is written there. Default: none
   * (a path that does not exist, so no plugin is found).
   */
  readonly dataDir?: string
}

/**
 * `Kernel.layer` with every store in this process's memory (`Stores.catalog`'s in-memory
 * Layers): it opens no database and writes no file. The access-token key is random per process
 * unless `signingSecret` is given (sessions die with the process anyway, with the stores). Any
 * store option you pass replaces its in-memory default, as for `Kernel.layer`.
 *
 * @example
 * const kernel = Kernel.layerMemory({ env: process.env })
 */
export function layerMemory<Extra>(
  options: WithScheduler<KernelMemoryOptions, Extra>,
): Layer.Layer<KernelServices | Extra, KernelError>
export function layerMemory(options?: KernelMemoryOptions): Layer.Layer<KernelServices, KernelError>
export function layerMemory(options: KernelMemoryOptions = {}): Layer.Layer<KernelServices, KernelError> {
  return compose(
    {
      ...options,
      // Never created: the plugin scan of a missing folder finds nothing and writes nothing.
      dataDir: options.dataDir ?? Path.join(Os.tmpdir(), `aide-memory-${Crypto.randomUUID()}`),
      signingSecret: options.signingSecret ?? Redacted.make(new Uint8Array(Crypto.randomBytes(32))),
    },
    "memory",
  )
}

/** Both kernels: the same services and mechanisms, over the stores of `defaults` where none is given. */
const compose = (options: KernelOptions, defaults: StoreDefaults): Layer.Layer<KernelServices, KernelError> => {
  const ids = options.ids ?? Ids.layer
  const authConfig = AuthConfig.layer(options.auth)
  const accessTokens = (
    options.accessTokens ??
    Layer.unwrapEffect(Effect.map(signingSecret(options), (key) => AccessTokens.layer({ secret: key })))
  ).pipe(Layer.provide(authConfig))
  const modelRegistry = options.modelRegistry ?? ModelRegistry.layer({ env: options.env ?? {} })
  const stores = storesLayer(options, ids, defaults)
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
  const memory = { releaseClaimsAtStart, ...options.memory }
  const { dataDir } = options
  const plugins = {
    ...(dataDir === undefined ? {} : { pluginsDir: Path.join(dataDir, "plugins") }),
    env: options.env ?? {},
    ...options.plugins,
  }
  // Sandboxed plugins' modules are compiled once, when enabled, into the data dir (Precompile.ts);
  // without one, each compartment process compiles them itself.
  const pluginLoader = {
    ...(dataDir === undefined ? {} : { modulesDir: Path.join(dataDir, "cache", "plugin-modules") }),
    ...options.pluginLoader,
  }
  const mcp = { env: options.env ?? {}, ...options.mcp }
  const connections = Layer.unwrapEffect(
    Effect.map(connectionSecret(options), (secret) => ProviderConnections.layer({ secret })),
  )
  return services({ ...options, memory, plugins, pluginLoader, mcp }).pipe(
    Layer.provideMerge(connections),
    Layer.provideMerge(titles),
    Layer.provideMerge(mechanisms),
    Layer.provideMerge(stores),
  )
}
