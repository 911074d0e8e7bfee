import type { SqlClient } from "@effect/sql"
import { Effect, Layer, type Scope } from "effect"
import type { Chat } from "../chat/Chat.js"
import type { AppConfig } from "../config/AppConfig.js"
import type { Ids } from "../ids/Ids.js"
import type { Inbox } from "../inbox/Inbox.js"
import type { StorageError } from "../storage/StorageError.js"
import type { Threads } from "../threads/Threads.js"
import { RunLedger } from "./RunLedger.js"
import * as Scheduler from "./Scheduler.js"
import * as SqlRunLedger from "./SqlRunLedger.js"

/**
 * The scheduler with its ledger in SQL storage, as this module offered it before the scheduler
 * and its ledger were separate Layers: kept so existing compositions still build unchanged.
 */

/** @deprecated use `Scheduler.SchedulerOptions` */
export type SchedulerOptions = Scheduler.SchedulerOptions

/** @deprecated use `Scheduler.defaults` */
export const defaults = Scheduler.defaults

/** @deprecated use `Scheduler.make(options)` with a `RunLedger` (e.g. `SqlRunLedger.layer`) */
export const make = (
  options: Scheduler.SchedulerOptions = {},
): Effect.Effect<
  Scheduler.Scheduler["Type"],
  StorageError,
  SqlClient.SqlClient | AppConfig | Chat | Threads | Inbox | Ids | Scope.Scope
> => Effect.provideServiceEffect(Scheduler.make(options), RunLedger, SqlRunLedger.make)

/** @deprecated use `Scheduler.layer(options).pipe(Layer.provide(SqlRunLedger.layer))` */
export const layerWith = (
  options: Scheduler.SchedulerOptions,
): Layer.Layer<Scheduler.Scheduler, StorageError, SqlClient.SqlClient | AppConfig | Chat | Threads | Inbox | Ids> =>
  Scheduler.layer(options).pipe(Layer.provide(SqlRunLedger.layer))

/** @deprecated use `Scheduler.layer().pipe(Layer.provide(SqlRunLedger.layer))` */
export const layer: Layer.Layer<
  Scheduler.Scheduler,
  StorageError,
  SqlClient.SqlClient | AppConfig | Chat | Threads | Inbox | Ids
> = layerWith({})
