import type { SqlClient } from "@effect/sql"
import { type Context, Layer } from "effect"
import type { Ids } from "../ids/Ids.js"
import type { Schema } from "../storage/SqlMigrations.js"
import type { StorageError } from "../storage/StorageError.js"

/** One store: its Tag, its SQL Layer (SQLite or PostgreSQL) and schema, and its in-memory Layer. */
export interface Store<S, Shape = unknown> {
  readonly tag: Context.Tag<S, Shape>
  readonly sql: Layer.Layer<S, StorageError, SqlClient.SqlClient | Ids>
  readonly memory: Layer.Layer<S, never, Ids>
  readonly schema: Schema
}

/** The Layer an embedder gives for a store: it replaces the store's default whole. */
export type StoreLayer<S> = Layer.Layer<S, StorageError>

/**
 * A list of stores, grown one `add` at a time so that every derived Layer keeps the type of each
 * store it merges: `Services` is the union of the stores' Tags, `Options` one optional Layer per
 * store name. Everything the kernel needs of "all the stores" is derived from here.
 */
export interface StoreSet<Services, Options> {
  readonly names: ReadonlyArray<keyof Options & string>
  /** Each store's Tag (for checks that a kernel provides them all). */
  readonly tags: ReadonlyArray<Context.Tag<any, any>>
  /** The schemas, in the order the stores were added (a fresh database gets them in this order). */
  readonly schemas: ReadonlyArray<Schema>
  /** Every store's SQL Layer, on one connection. */
  readonly sql: Layer.Layer<Services, StorageError, SqlClient.SqlClient | Ids>
  /** Every store in this process's memory. */
  readonly memory: Layer.Layer<Services, never, Ids>
  /** Each store given in `options`, else its SQL Layer. */
  readonly overSql: (options: Options) => Layer.Layer<Services, StorageError, SqlClient.SqlClient | Ids>
  /** Each store given in `options`, else its in-memory Layer: no connection needed. */
  readonly overMemory: (options: Options) => Layer.Layer<Services, StorageError, Ids>
  readonly add: <K extends string, S, Shape>(
    name: K,
    store: Store<S, Shape>,
  ) => StoreSet<Services | S, Options & { readonly [k in K]?: StoreLayer<S> }>
}

/** What the stores of a set provide, as one union. */
export type Services<T> = T extends StoreSet<infer S, infer _O> ? S : never
/** One optional Layer per store name of a set. */
export type Options<T> = T extends StoreSet<infer _S, infer O> ? O : never

/** The empty set: `StoreSet.empty.add("threads", { tag, sql, memory, schema }).add(…)`. */
export const empty: StoreSet<never, {}> = (() => {
  const make = <Services, Options>(set: Omit<StoreSet<Services, Options>, "add">): StoreSet<Services, Options> => ({
    ...set,
    add: <K extends string, S, Shape>(name: K, store: Store<S, Shape>) => {
      type Given = Options & { readonly [k in K]?: StoreLayer<S> }
      return make<Services | S, Given>({
        names: [...set.names, name],
        tags: [...set.tags, store.tag],
        schemas: [...set.schemas, store.schema],
        sql: Layer.merge(set.sql, store.sql),
        memory: Layer.merge(set.memory, store.memory),
        overSql: (options) => Layer.merge(set.overSql(options), options[name] ?? store.sql),
        overMemory: (options) => Layer.merge(set.overMemory(options), options[name] ?? store.memory),
      })
    },
  })
  return make<never, {}>({
    names: [],
    tags: [],
    schemas: [],
    sql: Layer.empty,
    memory: Layer.empty,
    overSql: () => Layer.empty,
    overMemory: () => Layer.empty,
  })
})()
