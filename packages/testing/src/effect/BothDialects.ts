import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { freshPostgresStorage, postgresAvailable, tempSqliteStorage } from "./Databases.js"
import { describe, layer, type Vitest } from "./EffectVitest.js"

/**
 * Runs one suite on SQLite and on PostgreSQL (skipped without `AIDE_TEST_DATABASE_URL`), each on
 * a fresh migrated database shared by the suite's tests. `services` builds what the suite tests
 * (e.g. `SqlThreads.layer`) over the database; the database stays available to the tests.
 *
 * @example
 * bothDialects("SqlRunLedger", SqlRunLedger.layer, (it) => { it.effect("claims once", () => …) })
 */
export const bothDialects = <A, E, R extends SqlClient.SqlClient>(
  name: string,
  services: Layer.Layer<A, E, R>,
  suite: (it: Vitest.MethodsNonLive<A | SqlClient.SqlClient>) => void,
  options: { readonly timeout?: number } = {},
) =>
  describe(name, () => {
    // Each group takes its `it` from `layer(...)`: `it.layer` would share one database across groups.
    layer(Layer.provideMerge(services, tempSqliteStorage) as Layer.Layer<A | SqlClient.SqlClient, unknown>, {
      timeout: options.timeout ?? 30_000,
    })("SQLite", suite)
    describe.skipIf(!postgresAvailable)("PostgreSQL", () => {
      layer(Layer.provideMerge(services, freshPostgresStorage) as Layer.Layer<A | SqlClient.SqlClient, unknown>, {
        timeout: options.timeout ?? 60_000,
      })(suite)
    })
  })
