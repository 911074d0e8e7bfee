import { it } from "@effect/vitest"
import { Effect, type Layer } from "effect"

/**
 * The `it` of a contract suite: every test gets a store of its own, built from `store` for that
 * test and released after it (a SQL store on `tempSqliteStorage` gets a fresh database each
 * time), so tests never see each other's rows. Tests run under `TestClock`, as `it.effect`.
 */
export const contractIt = <Tag>(store: Layer.Layer<Tag, unknown>) => ({
  effect: (name: string, body: () => Effect.Effect<unknown, unknown, Tag>, timeout?: number) =>
    it.effect(name, () => Effect.asVoid(Effect.provide(body(), store)), timeout),
})
