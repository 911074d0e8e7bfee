import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Fiber, Ref, Schedule } from "effect"
import * as Ids from "../../src/ids/Ids.js"
import { Leases, layerLocal, whileHeld } from "../../src/replicas/Leases.js"
import * as PgLeases from "../../src/replicas/PgLeases.js"
import { freshStorageLayer, postgresAvailable } from "../support/postgres.js"

/** Two replicas' `Leases` on one fresh database: each its own holder id. */
const twoReplicas = (ttl: Duration.DurationInput) =>
  Effect.gen(function* () {
    const a = yield* PgLeases.make({ ttl })
    const b = yield* PgLeases.make({ ttl })
    return { a, b }
  }).pipe(Effect.provide(Ids.layer))

/** Polls `check` until it holds (bounded): the lease clock is the database's, not one a test can move. */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  check.pipe(
    Effect.repeat({ schedule: Schedule.spaced("25 millis"), until: (ok) => ok }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("condition not reached within 5 s") }),
  )

describe.runIf(postgresAvailable)("PgLeases", () => {
  it.scopedLive("one holder at a time; renewal keeps it; release hands it over at once", () =>
    Effect.gen(function* () {
      const { a, b } = yield* twoReplicas("30 seconds")
      expect(a.holder).not.toBe(b.holder)
      expect(yield* a.acquire("scheduler")).toBe(true)
      expect(yield* b.acquire("scheduler")).toBe(false)
      expect(yield* a.acquire("scheduler")).toBe(true)
      // Another name is another lease.
      expect(yield* b.acquire("inbox-sweep")).toBe(true)
      expect(yield* a.acquire("inbox-sweep")).toBe(false)
      // Releasing what another holds is a no-op.
      yield* b.release("scheduler")
      expect(yield* b.acquire("scheduler")).toBe(false)
      yield* a.release("scheduler")
      expect(yield* b.acquire("scheduler")).toBe(true)
      expect(yield* a.acquire("scheduler")).toBe(false)
    }).pipe(Effect.provide(freshStorageLayer)),
  )

  it.scopedLive("a holder that stops renewing loses the lease once it expires, not before", () =>
    Effect.gen(function* () {
      // 1.5 s: each statement is bounded by a third of the TTL, and 133 ms (a 400 ms TTL's) was
      // exceeded by a loaded CI machine's PostgreSQL.
      const { a, b } = yield* twoReplicas("1500 millis")
      expect(yield* a.acquire("channel:telegram/main")).toBe(true)
      const takenAt = Date.now()
      expect(yield* b.acquire("channel:telegram/main")).toBe(false)
      yield* eventually(b.acquire("channel:telegram/main"))
      expect(Date.now() - takenAt).toBeGreaterThanOrEqual(1400)
      // The old holder finds it gone when it renews.
      expect(yield* a.acquire("channel:telegram/main")).toBe(false)
    }).pipe(Effect.provide(freshStorageLayer)),
  )

  it.scopedLive("whileHeld runs the work on one replica and moves it when that one shuts down", () =>
    Effect.gen(function* () {
      // 1.5 s, not less: each statement is bounded by a third of the TTL (see above).
      const { a, b } = yield* twoReplicas("1500 millis")
      const running = yield* Ref.make<ReadonlyArray<string>>([])
      const work = (who: string) =>
        Effect.acquireRelease(
          Ref.update(running, (list) => [...list, who]),
          () => Ref.update(running, (list) => list.filter((entry) => entry !== who)),
        ).pipe(Effect.zipRight(Effect.never), Effect.scoped)
      const onA = yield* Effect.fork(Effect.provideService(whileHeld("scheduler", work("a")), Leases, a))
      yield* eventually(Effect.map(Ref.get(running), (list) => list.length === 1))
      const onB = yield* Effect.fork(Effect.provideService(whileHeld("scheduler", work("b")), Leases, b))
      // B keeps trying (every 500 ms) while A renews: never both.
      for (let i = 0; i < 6; i++) {
        yield* Effect.sleep("100 millis")
        expect(yield* Ref.get(running)).toEqual(["a"])
      }
      const stoppedAt = Date.now()
      yield* Fiber.interrupt(onA)
      yield* eventually(Effect.map(Ref.get(running), (list) => list.length === 1 && list[0] === "b"))
      // Released at shutdown: B takes over at its next try, well before the 1.5 s expiry.
      expect(Date.now() - stoppedAt).toBeLessThan(1000)
      yield* Fiber.interrupt(onB)
      expect(yield* Ref.get(running)).toEqual([])
    }).pipe(Effect.provide(freshStorageLayer)),
  )
})

describe("Leases.layerLocal", () => {
  it.scopedLive("one process holds every lease: whileHeld just runs the work", () =>
    Effect.gen(function* () {
      const ran = yield* Ref.make(0)
      const fiber = yield* Effect.fork(
        whileHeld(
          "scheduler",
          Ref.update(ran, (n) => n + 1),
        ),
      )
      yield* eventually(Effect.map(Ref.get(ran), (n) => n === 1))
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(layerLocal)),
  )
})
