import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as SqlMigrations from "../../storage/SqlMigrations.js"
import type { StorageError } from "../../storage/StorageError.js"
import { ObservationStore } from "./ObservationStore.js"
import { schema } from "./observationSchema.js"
import * as Forks from "./sql/forks.js"
import * as Log from "./sql/log.js"
import * as Records from "./sql/records.js"
import * as Reflections from "./sql/reflections.js"

/** `ObservationStore` over any `SqlClient` dialect (tables of migration 0013). */
export const make = Effect.gen(function* () {
  const records = yield* Records.make
  const log = yield* Log.make
  const reflections = yield* Reflections.make(log.lockClaimed)
  const forks = yield* Forks.make
  return ObservationStore.of({
    ...records,
    ingest: log.ingest,
    countedIds: (key, threadId) => log.idsWhere(key, threadId, false),
    observedIds: (key, threadId) => log.idsWhere(key, threadId, true),
    pendingTokens: log.pendingTokens,
    pendingEntries: log.pendingEntries,
    commitObservation: log.commitObservation,
    activeLog: log.activeLog,
    ...reflections,
    ...forks,
  })
})

/** `ObservationStore` on a `SqlClient`, migrated first if it is not yet. */
export const layer: Layer.Layer<ObservationStore, StorageError, SqlClient.SqlClient> = Layer.effect(
  ObservationStore,
  Effect.zipRight(SqlMigrations.ensure(schema), make),
)
