import type { SqlClient } from "@effect/sql"
import type { Layer, Redacted } from "effect"
import type * as AccessTokens from "../auth/AccessTokens.js"
import type * as AuthConfig from "../auth/AuthConfig.js"
import type * as PasswordHasher from "../auth/PasswordHasher.js"
import type * as SigningSecret from "../auth/SigningSecret.js"
import type * as StreamHub from "../chat/StreamHub.js"
import type * as TitleGenerator from "../chat/TitleGenerator.js"
import type * as AppConfig from "../config/AppConfig.js"
import type * as Ids from "../ids/Ids.js"
import type * as ProviderConnections from "../models/connections/ProviderConnections.js"
import type * as ModelRegistry from "../models/ModelRegistry.js"
import type * as RateLimiter from "../ratelimit/RateLimiter.js"
import type { Leases } from "../replicas/Leases.js"
import type { ReplicaSignals } from "../replicas/ReplicaSignals.js"
import type { ThreadClaims } from "../replicas/ThreadClaims.js"
import type { StorageError } from "../storage/StorageError.js"
import type { StoreLayers } from "../stores/Stores.js"
import type { ServiceRequirements, Services, ServicesOptions } from "./ServiceOptions.js"

/**
 * The stores `Kernel.layer` takes: one optional Layer per store of `Stores.catalog` (by the
 * name there, e.g. `threads`, `authStore`), each replacing the store's default whole — its SQL
 * Layer on `storage` for `Kernel.layer`, its in-memory one for `Kernel.layerMemory`. Replacing
 * `threads` needs `recallIndex` too: the SQL index reads the `messages` table, which your threads
 * leave empty (`RecallIndex.layerEmpty` for no semantic recall, or an index over your threads).
 */
export interface StoreOptions extends StoreLayers {
  /**
   * The connection of the SQL stores; default `SqliteStorage.layer` on `<dataDir>/aide.db`.
   * Migrated or not: the stores migrate what they need. Not opened when you replace every store.
   */
  readonly storage?: Layer.Layer<SqlClient.SqlClient, StorageError>
}

export interface KernelOptions extends ServicesOptions, StoreOptions {
  /**
   * Where the SQLite database, the generated signing secret, the plugins and their compiled
   * modules live. Optional when nothing goes to disk: every store replaced (or `storage` given),
   * `signingSecret` or `accessTokens` (or an `auth` Layer) given, and plugins off
   * (`pluginLoaderLayer: NoPlugins.layer`) or their folders given in `plugins`. Anything that still
   * needs it fails `Kernel.layer` at once with `KernelOptionsError`, naming the option.
   */
  readonly dataDir?: string
  /**
   * Give up observational memory's claims at start (they can only be a crashed run's). Default:
   * true when the kernel opens its own SQLite file in `dataDir` (no `storage`), false otherwise —
   * a shared database may hold live claims of other replicas. `memory.releaseClaimsAtStart` wins.
   */
  readonly releaseClaimsAtStart?: boolean
  /** Access-token key (≥ 32 bytes); default: generated once into `<dataDir>/jwt-secret` (0600). */
  readonly signingSecret?: Redacted.Redacted<Uint8Array>
  /** Access tokens; default HS256 JWTs signed with `signingSecret` (`AccessTokens.layer`). */
  readonly accessTokens?: Layer.Layer<
    AccessTokens.AccessTokens,
    SigningSecret.SigningSecretError,
    AuthConfig.AuthConfig
  >
  /** Default: argon2id with OWASP parameters. */
  readonly passwordHasher?: Layer.Layer<PasswordHasher.PasswordHasher>
  /** Default: in-memory fixed windows. */
  readonly rateLimiter?: Layer.Layer<RateLimiter.RateLimiter>
  /** The host's environment, for provider API keys and MCP servers (the kernel never reads `process.env`); default `{}`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Default: `ModelRegistry.layer({ env })`, the provider catalogue configured from `env`. */
  readonly modelRegistry?: Layer.Layer<ModelRegistry.ModelRegistry>
  /** Live chat streams; default: in this process's memory, replayable 60 s after they finish. */
  readonly streamHub?: Layer.Layer<StreamHub.StreamHub>
  /** Thread titles; default: asked of the operator model (`TitleGenerator.layerModel`). */
  readonly titles?: Layer.Layer<TitleGenerator.TitleGenerator, never, AppConfig.AppConfig | ModelRegistry.ModelRegistry>
  /** Ids and random secrets; default `Ids.layer` (UUID v4, `crypto.randomBytes`). */
  readonly ids?: Layer.Layer<Ids.Ids>
  /**
   * Who runs what must run once (scheduler, inbox sweep, channel connections) when several
   * replicas share the stores, e.g. `PgLeases.layer`; default none: this process runs them all.
   */
  readonly leases?: Layer.Layer<Leases, StorageError>
  /** "One run per thread" across replicas, e.g. `PgThreadClaims.layer`; default none: chat's own check. */
  readonly threadClaims?: Layer.Layer<ThreadClaims, StorageError>
  /**
   * Messages between replicas (a `stop` for a run on another replica), e.g. `PgReplicaSignals.layer`;
   * default none. Chat sends and hears them only with `threadClaims`, which tell where a run is.
   */
  readonly replicaSignals?: Layer.Layer<ReplicaSignals, StorageError>
}

/** Everything the default kernel provides: the services and every Tag they were given. */
export type KernelServices = Services | ServiceRequirements | ProviderConnections.ProviderConnections
