import { createRequire } from "node:module"
import { SqlClient } from "@effect/sql"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ObservationStore } from "../src/memory/observational/ObservationStore.js"
import * as SqlObservationStore from "../src/memory/observational/SqlObservationStore.js"
import { tempSqliteStorageLayer } from "./support/files.js"

// What a chat turn's memory reads must not grow with a year of observed messages (issue 38,
// bench/year.mjs): the statements `pendingTokens` and `activeLog` really run are planned here
// by SQLite, which must search the partial indexes of migration 0020 (the pending ledger rows,
// the active log), not walk every row of the record.

/** The text of every statement the store runs (better-sqlite3's `all`, wrapped where it executes). */
const statements: Array<string> = []
// No @types package for better-sqlite3 in the workspace: the one call used here, typed.
const Database = createRequire(import.meta.url)("better-sqlite3") as new (
  filename: string,
) => { prepare(sql: string): object }
const statementPrototype = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1"))
const original = statementPrototype.all as (...args: Array<unknown>) => unknown
statementPrototype.all = function (this: { readonly source: string }, ...args: Array<unknown>) {
  statements.push(this.source)
  return original.apply(this, args)
}
afterAll(() => {
  statementPrototype.all = original
})

/** SQLite's plan of the statement the store ran last whose text contains `marker`. */
const planOf = (marker: string, params: ReadonlyArray<unknown>) =>
  Effect.gen(function* () {
    const statement = statements.findLast((text) => text.includes(marker))
    expect(statement).toBeDefined()
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement}`, [...params])
    return rows.map((row) => row.detail).join("\n")
  })

const layer = SqlObservationStore.layer.pipe(Layer.provideMerge(tempSqliteStorageLayer))

describe("SqlObservationStore indexes (migration 0020)", () => {
  it.effect("pendingTokens searches the pending rows only, activeLog the active chunks only", () =>
    Effect.gen(function* () {
      const store = yield* ObservationStore
      const at = new Date("2026-01-01T00:00:00Z")
      yield* store.ensureRecord("resource", "resource", "r1", at)
      yield* store.ingest("resource", [
        { threadId: "t1", messageId: "m1", tokens: 10, createdAt: at },
        { threadId: "t1", messageId: "m2", tokens: 20, createdAt: at },
      ])
      expect(yield* store.pendingTokens("resource")).toBe(30)
      expect(yield* planOf("GROUP BY message_id", ["resource"])).toContain("memory_messages_pending_message")

      expect((yield* store.activeLog("resource")).chunks).toEqual([])
      expect(yield* planOf("c.reflected_in IS NULL", ["resource"])).toContain("memory_chunks_active")
    }).pipe(Effect.provide(layer)),
  )
})
