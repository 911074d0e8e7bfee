import { Context, Effect, Layer } from "effect"

/** A connection pool's state at one moment. */
export interface PoolUsage {
  /** The most connections the pool opens. */
  readonly max: number
  /** Connections running a query or held by a transaction. */
  readonly inUse: number
  /** Open connections waiting for work. */
  readonly idle: number
  /** Queries waiting for a connection (the pool is at `max` and every one is in use). */
  readonly waiting: number
}

/**
 * How full the database connection pool is, for a host to report (`GET /metrics`). Provided by
 * the storage Layer beside its `SqlClient`; a storage of one's own may leave it out.
 *
 * @example
 * const { inUse, max } = yield* Effect.flatMap(DatabasePool, (pool) => pool.usage)
 */
export class DatabasePool extends Context.Tag("@aide/kernel/DatabasePool")<
  DatabasePool,
  { readonly usage: Effect.Effect<PoolUsage> }
>() {}

/**
 * One connection whose statements run synchronously (better-sqlite3): whenever a scrape runs no
 * statement does, so it is reported idle. A transaction holding it across awaits is not seen.
 */
export const layerSingle: Layer.Layer<DatabasePool> = Layer.succeed(
  DatabasePool,
  DatabasePool.of({ usage: Effect.succeed({ max: 1, inUse: 0, idle: 1, waiting: 0 }) }),
)
