import { bothDialects, onSqlDialects, recallIndexContract, threadsContract } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Ids from "../src/ids/Ids.js"
import * as RecallIndex from "../src/memory/recall/RecallIndex.js"
import * as SqlRecallIndex from "../src/memory/recall/SqlRecallIndex.js"
import * as MemoryThreads from "../src/threads/MemoryThreads.js"
import * as SqlThreads from "../src/threads/SqlThreads.js"
import { type StoredMessage, Threads } from "../src/threads/Threads.js"

// The store-level behaviour is `threadsContract` (@aide/testing), run on every implementation.
onSqlDialects(threadsContract, "SqlThreads", SqlThreads.layer.pipe(Layer.provide(Ids.layer)))
threadsContract("MemoryThreads", MemoryThreads.layer.pipe(Layer.provide(Ids.layer)))

const text = (id: string, body: string): StoredMessage => ({ id, role: "user", parts: [{ type: "text", text: body }] })

const rowCount = (table: "threads" | "messages") =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly count: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS "count" FROM ${sql(table)}`.pipe(
      Effect.map((rows) => Number(rows[0]?.count)),
    ),
  )

const empty = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(sql`DELETE FROM messages`, sql`DELETE FROM threads`),
)

// What only the tables show: no row left behind by a failed write or a delete (the contract
// sees the store only through `Threads`, where an orphaned row would be invisible).
bothDialects("SqlThreads rows", SqlThreads.layer.pipe(Layer.provide(Ids.layer)), (it) => {
  it.effect("a save or fork that fails writes no row", () =>
    Effect.gen(function* () {
      yield* empty
      const threads = yield* Threads
      yield* threads.ensure("root")
      yield* threads.saveMessage("root", text("m1", "hi"))
      yield* Effect.flip(threads.saveMessage("nope", text("m2", "lost")))
      yield* Effect.flip(threads.fork("root", "missing"))
      yield* Effect.flip(threads.fork("nope", "m1"))
      expect([yield* rowCount("threads"), yield* rowCount("messages")]).toEqual([1, 1])
    }),
  )

  it.effect("deleting a root deletes the rows of every branch and message of its family", () =>
    Effect.gen(function* () {
      yield* empty
      const threads = yield* Threads
      yield* threads.ensure("root")
      yield* threads.saveMessage("root", text("m1", "one"))
      yield* threads.saveMessage("root", text("m2", "two"))
      const branch = yield* threads.fork("root", "m2")
      yield* threads.fork(branch.thread.id, "m1")
      yield* threads.delete("root")
      expect([yield* rowCount("threads"), yield* rowCount("messages")]).toEqual([0, 0])
    }),
  )
})

// The SQL recall index is bundled with the SQL threads whose tables it indexes.
onSqlDialects(
  recallIndexContract,
  "SqlRecallIndex over SqlThreads",
  Layer.merge(SqlRecallIndex.layer, SqlThreads.layer).pipe(Layer.provide(Ids.layer)),
)

// `RecallIndex.layerEmpty` (beside MemoryThreads) finds nothing by design, so `recallIndexContract`
// does not apply to it; what it promises is only that.
it.effect("RecallIndex.layerEmpty finds nothing, whatever the threads hold", () =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const recall = yield* RecallIndex.RecallIndex
    yield* threads.ensure("a")
    yield* threads.saveMessage("a", text("m1", "the narwhal"))
    const scope = { excludeThreadId: "other", limit: 10 }
    expect(yield* recall.searchText(["narwhal"], scope)).toEqual([])
    expect(yield* recall.searchVector("m", [1, 0], scope)).toEqual([])
    expect(yield* recall.around("a", 0, 5)).toEqual([])
    expect(yield* recall.unembedded("a", "m", 10)).toEqual([])
  }).pipe(Effect.provide(Layer.merge(RecallIndex.layerEmpty, MemoryThreads.layer.pipe(Layer.provide(Ids.layer))))),
)
