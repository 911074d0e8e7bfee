import { ConfigStore as Module } from "@aide/kernel/storage"
import { Data, Effect, type Layer, TestClock } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { ConfigStore } = Module

class Refused extends Data.TaggedError("Refused")<{}> {}

/**
 * Adds one to the `n` of a stored JSON document (what a patch does: read, change, write),
 * yielding in between so that a store without mutual exclusion lets another writer in.
 */
const increment = (stored: string) =>
  Effect.as(Effect.yieldNow(), JSON.stringify({ n: (JSON.parse(stored).n ?? 0) + 1 }))

/**
 * The contract of `ConfigStore` (the stored config document, as text): `{}` at first, text kept
 * exactly (never parsed), `update` as a read-modify-write that concurrent writers cannot
 * interleave with and that stores nothing when it fails, rejected documents set aside once.
 * Run it on your store's Layer (a fresh, empty store per test).
 */
export const configStoreContract = (name: string, store: Layer.Layer<Module.ConfigStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("an empty store loads `{}` and hands `{}` to the first update", () =>
      Effect.gen(function* () {
        const config = yield* ConfigStore
        expect(yield* config.load).toBe("{}")
        const seen: Array<string> = []
        yield* config.update((stored) => Effect.sync(() => seen.push(stored)).pipe(Effect.as(stored)))
        expect(seen).toEqual(["{}"])
        expect(yield* config.rejected).toEqual([])
      }),
    )

    it.effect("stores what update returns, as text, exactly, even text that is not JSON", () =>
      Effect.gen(function* () {
        const config = yield* ConfigStore
        const document = '{ "timezone": "Europe/Paris",\n  "note": "ça 👋" }'
        expect(yield* config.update(() => Effect.succeed(document))).toBe(document)
        expect(yield* config.load).toBe(document)
        const broken = '{"timezone": '
        yield* config.update(() => Effect.succeed(broken))
        expect(yield* config.load).toBe(broken)
        const seen: Array<string> = []
        yield* config.update((stored) => Effect.sync(() => seen.push(stored)).pipe(Effect.as("{}")))
        expect(seen).toEqual([broken])
      }),
    )

    it.effect("an update whose function fails stores nothing and fails with its error", () =>
      Effect.gen(function* () {
        const config = yield* ConfigStore
        yield* config.update(() => Effect.succeed('{"kept":true}'))
        const error = yield* Effect.flip(config.update(() => Effect.fail(new Refused())))
        expect(error).toBeInstanceOf(Refused)
        expect(yield* config.load).toBe('{"kept":true}')
      }),
    )

    it.effect("concurrent updates never interleave: no write is lost", () =>
      Effect.gen(function* () {
        const config = yield* ConfigStore
        yield* config.update(increment)
        yield* Effect.all(
          Array.from({ length: 8 }, () => config.update(increment)),
          { concurrency: "unbounded" },
        )
        expect(JSON.parse(yield* config.load)).toEqual({ n: 9 })
      }),
    )

    it.effect("sets a rejected text aside once, with its reason and time, oldest first", () =>
      Effect.gen(function* () {
        const config = yield* ConfigStore
        yield* TestClock.setTime(Date.parse("2030-01-01T00:00:00.000Z"))
        yield* config.setAside('{"colour":', "not JSON")
        yield* TestClock.adjust("1 minute")
        yield* config.setAside('{"depth":1}', "invalid")
        yield* TestClock.adjust("1 minute")
        yield* config.setAside('{"colour":', "not JSON, again")
        expect(yield* config.rejected).toEqual([
          { document: '{"colour":', reason: "not JSON", rejectedAt: "2030-01-01T00:00:00.000Z" },
          { document: '{"depth":1}', reason: "invalid", rejectedAt: "2030-01-01T00:01:00.000Z" },
        ])
        // Setting aside is not a write of the document.
        expect(yield* config.load).toBe("{}")
      }),
    )
  })
