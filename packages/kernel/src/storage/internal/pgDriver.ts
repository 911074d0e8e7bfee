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

/**
 * The `pg` driver (node-postgres), the one `@effect/sql-pg` drives: the kernel declares the same
 * version, so one copy is installed (and bundled). Loaded on first use: SQLite servers never load it.
 */
export const pg = (): Promise<PgModule> =>
  // @ts-expect-error `pg` ships no types (the interfaces above say what is used of it)
  import("pg").then((module) => ((module as { default?: PgModule }).default ?? module) as PgModule)
