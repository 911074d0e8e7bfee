import { WebhookReplays as Module } from "@aide/kernel/storage"
import { Effect, type Layer } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { WebhookReplays } = Module

const now = 1_900_000_000
const entry = (signature: string, until = now + 300, channel = "tg:bot") => ({ channel, signature, until })

/**
 * The contract of `WebhookReplays`: run it on your store's Layer (a fresh store per test) and on
 * the same store kept to 3 signatures per channel (`bounded`), trimmed as soon as it is over.
 *
 * @example
 * webhookReplaysContract("MyReplays", MyReplays.layer, MyReplays.layerWith({ maxEntries: 3 }))
 */
export const webhookReplaysContract = (
  name: string,
  store: Layer.Layer<Module.WebhookReplays, unknown>,
  bounded: Layer.Layer<Module.WebhookReplays, unknown>,
) =>
  describe(name, () => {
    const it = contractIt(store)
    const itBounded = contractIt(bounded)

    it.effect("a signature is new once, refused until its window ends, then new again", () =>
      Effect.gen(function* () {
        const replays = yield* WebhookReplays
        expect(yield* replays.remember(entry("a", now + 10), now)).toBe(true)
        expect(yield* replays.remember(entry("a", now + 10), now + 5)).toBe(false)
        expect(yield* replays.remember(entry("a", now + 10), now + 10)).toBe(false)
        expect(yield* replays.remember(entry("a", now + 30), now + 11)).toBe(true)
        expect(yield* replays.remember(entry("a", now + 30), now + 12)).toBe(false)
      }),
    )

    it.effect("the same signature on another channel is another entry", () =>
      Effect.gen(function* () {
        const replays = yield* WebhookReplays
        expect(yield* replays.remember(entry("s", now + 60, "tg:bot"), now)).toBe(true)
        expect(yield* replays.remember(entry("s", now + 60, "tg:other"), now)).toBe(true)
        expect(yield* replays.remember(entry("s", now + 60, "tg:other"), now)).toBe(false)
      }),
    )

    it.effect("a forgotten signature is new again (its request failed: the sender retries)", () =>
      Effect.gen(function* () {
        const replays = yield* WebhookReplays
        expect(yield* replays.remember(entry("f"), now)).toBe(true)
        yield* replays.forget("tg:bot", "f")
        yield* replays.forget("tg:bot", "never-seen")
        expect(yield* replays.remember(entry("f"), now)).toBe(true)
        expect(yield* replays.remember(entry("f"), now)).toBe(false)
      }),
    )

    it.effect("of concurrent remembers of one signature, exactly one is new", () =>
      Effect.gen(function* () {
        const replays = yield* WebhookReplays
        const answers = yield* Effect.all(
          Array.from({ length: 8 }, () => replays.remember(entry("race"), now)),
          { concurrency: "unbounded" },
        )
        expect(answers.filter((fresh) => fresh)).toHaveLength(1)
      }),
    )

    itBounded.effect("past the bound, the signatures ending first go first", () =>
      Effect.gen(function* () {
        const replays = yield* WebhookReplays
        for (const [signature, until] of [
          ["s1", now + 10],
          ["s2", now + 20],
          ["s3", now + 30],
          ["s4", now + 40],
        ] as const) {
          expect(yield* replays.remember(entry(signature, until), now)).toBe(true)
        }
        for (const signature of ["s2", "s3", "s4"]) {
          expect(yield* replays.remember(entry(signature, now + 40), now)).toBe(false)
        }
        expect(yield* replays.remember(entry("s1", now + 10), now)).toBe(true)
      }),
    )

    itBounded.effect("a flood on one channel keeps another channel's signatures", () =>
      Effect.gen(function* () {
        const replays = yield* WebhookReplays
        expect(yield* replays.remember(entry("kept", now + 60, "tg:quiet"), now)).toBe(true)
        for (let index = 0; index < 20; index++) {
          expect(yield* replays.remember(entry(`flood-${index}`, now + 300, "tg:loud"), now)).toBe(true)
        }
        expect(yield* replays.remember(entry("kept", now + 60, "tg:quiet"), now)).toBe(false)
      }),
    )
  })
