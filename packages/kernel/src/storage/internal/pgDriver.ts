import { createRequire } from "node:module"

/** What is used of a `pg` pool (pg-pool's counters among it); `pg` ships no types of its own. */
export interface PgPool {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
  readonly on: (event: "error", listener: (error: unknown) => void) => void
  readonly query: (text: string) => Promise<unknown>
  readonly end: () => Promise<void>
}

/** What is used of a single `pg` connection (the `LISTEN` one). */
export interface PgConnection {
  readonly connect: () => Promise<void>
  readonly query: (text: string) => Promise<unknown>
  readonly end: () => Promise<void>
  readonly on: {
    (event: "notification", listener: (message: { channel: string; payload?: string }) => void): void
    (event: "error", listener: (error: unknown) => void): void
    (event: "end", listener: () => void): void
  }
  readonly escapeIdentifier: (name: string) => string
}

interface PgModule {
  readonly Pool: new (options: object) => PgPool
  readonly Client: new (options: object) => PgConnection
}

let loaded: PgModule | undefined

/**
 * The `pg` of `@effect/sql-pg`, loaded from where that package finds it: the pool we make and
 * read is of the very driver the client drives, and the kernel declares no second copy of it.
 * Loaded on first use: SQLite servers never load it.
 */
export const pg = (): PgModule => {
  if (loaded === undefined) {
    const fromKernel = createRequire(import.meta.url)
    loaded = createRequire(fromKernel.resolve("@effect/sql-pg"))("pg") as PgModule
  }
  return loaded
}
