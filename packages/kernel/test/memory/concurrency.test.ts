import { tempDirectory, until } from "@aide/testing/effect"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import * as Memory from "../../src/memory/Memory.js"
import { ObservationStore } from "../../src/memory/observational/ObservationStore.js"
import * as Tokens from "../../src/memory/observational/Tokens.js"
import {
  configure,
  database,
  dialects,
  fakeServer,
  isObserver,
  kernelOn,
  type MemoryKernel,
  observerTurn,
  saveTurn,
  textMessage,
  words,
} from "./support.js"

const record = Effect.flatMap(Memory.Memory, (memory) => Effect.map(memory.record(), (view) => view.record!))
const afterTurn = (threadId: string) => Effect.flatMap(Memory.Memory, (memory) => memory.afterTurn(threadId))

describe.each(dialects)("observational memory across processes (%s)", (dialect) => {
  it.live(
    "concurrent chats (and, on PostgreSQL, two processes on one database) neither lose nor double-count a message",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* fakeServer
          const db = yield* database(dialect)
          // Two kernels on one database, each with its own connection: two server processes.
          // SQLite is one process's alone (its data directory is locked): there, two chats race
          // in one process.
          const one = yield* Layer.build(kernelOn(db, server, yield* tempDirectory))
          const two = dialect === "postgres" ? yield* Layer.build(kernelOn(db, server, yield* tempDirectory)) : one
          const inBoth = <A, E>(effect: Effect.Effect<A, E, MemoryKernel>) =>
            Effect.all([Effect.provide(effect, one), Effect.provide(effect, two)])
          yield* inBoth(configure({ messageTokens: 60, observationTokens: 1_000_000 }))
          // Slow observers, so that claims are contended.
          server.script(
            ...Array.from({ length: 60 }, (_, n) =>
              observerTurn({ text: `Date: 2026-11-24\n- 10:00 🟡 note ${n}`, latencyMs: 25 }),
            ),
          )
          let totalTokens = 0
          const chat = (kernel: Context.Context<MemoryKernel>, threadId: string) =>
            Effect.forEach(
              Array.from({ length: 8 }, (_, n) => n),
              (n) => {
                const messages = [textMessage("user", words(20 + n, `w${n}`)), textMessage("assistant", "ok")]
                totalTokens += messages.reduce((sum, message) => sum + Tokens.ofMessage(message), 0)
                return Effect.provide(Effect.zipRight(saveTurn(threadId, messages), afterTurn(threadId)), kernel)
              },
              { discard: true },
            )
          yield* Effect.all([chat(one, "a1"), chat(one, "a2"), chat(two, "b1"), chat(two, "b2")], {
            concurrency: "unbounded",
          })
          yield* inBoth(afterTurn("a1"))
          yield* until(
            Effect.provide(
              Effect.map(record, (r) => !r.isObserving && r.pendingMessageTokens < 60),
              one,
            ),
            "observers settled",
          ).pipe(
            Effect.tapError(() =>
              Effect.flatMap(Effect.provide(record, one), (r) =>
                Effect.logError("memory record when the wait ended", r),
              ),
            ),
          )
          const final = yield* Effect.provide(record, one)
          const sql = Context.get(one, SqlClient.SqlClient)
          const ledger = yield* sql<{ messageId: string; tokens: number | string; chunkId: string | null }>`
            SELECT message_id AS "messageId", tokens, chunk_id AS "chunkId" FROM memory_messages
            WHERE record_key = 'resource'`
          const chunks = yield* sql<{ id: string; messageIds: string }>`
            SELECT id, message_ids AS "messageIds" FROM memory_chunks WHERE record_key = 'resource'`
          // Every message counted once, in full.
          expect(ledger).toHaveLength(64)
          expect(ledger.reduce((sum, row) => sum + Number(row.tokens), 0)).toBe(totalTokens)
          // No message is in two observations, and each observed row names the chunk listing it.
          const owner = new Map<string, string>()
          for (const chunk of chunks) {
            for (const id of JSON.parse(chunk.messageIds) as Array<string>) {
              expect(owner.has(id)).toBe(false)
              owner.set(id, chunk.id)
            }
          }
          for (const row of ledger) expect(row.chunkId ?? null).toBe(owner.get(row.messageId) ?? null)
          // Counters agree with the ledger exactly.
          const observed = ledger
            .filter((row) => row.chunkId !== null)
            .reduce((sum, row) => sum + Number(row.tokens), 0)
          expect(final.totalTokensObserved).toBe(observed)
          expect(final.pendingMessageTokens).toBe(totalTokens - observed)
          // One observer at a time: no two observer calls overlapped (each commit follows its call).
          expect(chunks.length).toBeLessThanOrEqual(server.requests.filter(isObserver).length)
        }),
      ),
    { timeout: 60_000 },
  )

  it.live("a crashed observer's claim never leaves isObserving stale", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* fakeServer
        const db = yield* database(dialect)
        const dataDir = yield* tempDirectory
        // A process dies mid-observation: its claim stays in the row (lease 300 ms).
        const crash = yield* Scope.make()
        const crashed = yield* Layer.buildWithScope(kernelOn(db, server, dataDir), crash)
        yield* Effect.provide(
          Effect.gen(function* () {
            yield* configure({ messageTokens: 50 })
            yield* record
            const store = yield* ObservationStore
            const now = new Date()
            expect(yield* store.claim("resource", "observing", "dead", now, new Date(now.getTime() + 300))).toBe(true)
            expect((yield* record).isObserving).toBe(true)
          }),
          crashed,
        )
        yield* Scope.close(crash, Exit.void)
        // A process that owns its storage alone gives every claim up at start.
        const restarted = yield* Layer.build(kernelOn(db, server, dataDir, { releaseClaimsAtStart: true }))
        yield* Effect.provide(
          Effect.gen(function* () {
            expect((yield* record).isObserving).toBe(false)
            yield* configure({ messageTokens: 50 })
            server.script(observerTurn({ text: "Date: 2026-11-24\n- 10:00 🔴 after the crash" }))
            yield* saveTurn("c", [textMessage("user", words(100, "crash"))])
            yield* afterTurn("c")
            yield* until(
              Effect.map(record, (r) => r.pendingMessageTokens === 0),
              "observed after restart",
            )
          }),
          restarted,
        )
        // Where several processes share a database (PostgreSQL), the lease runs out.
        yield* Effect.provide(
          Effect.gen(function* () {
            const store = yield* ObservationStore
            const now = new Date()
            yield* store.claim("resource", "reflecting", "dead-too", now, new Date(now.getTime() + 300))
            expect((yield* record).isReflecting).toBe(true)
            yield* Effect.sleep("350 millis")
            expect((yield* record).isReflecting).toBe(false)
          }),
          restarted,
        )
      }),
    ),
  )
})
