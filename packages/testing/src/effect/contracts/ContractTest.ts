import { Effect, type Layer } from "effect"
import { it } from "../EffectVitest.js"

/**
 * `it.effect` as it is before any suite runs: @effect/vitest's `layer(...)` assigns its own
 * `effect` onto the shared `it` (`Object.assign`), so a contract registered after a `layer` block
 * in the same file (e.g. `bothDialects`) would run inside that block's runtime too — building its
 * database (PostgreSQL, failing without `AIDE_TEST_DATABASE_URL`) for every test.
 */
const effectTest = it.effect

/**
 * The `it` of a contract suite: every test gets a store of its own, built from `store` for that
 * test and released after it (a SQL store on `tempSqliteStorage` gets a fresh database each
 * time), so tests never see each other's rows. Tests run under `TestClock`, as `it.effect`.
 */
export const contractIt = <Tag>(store: Layer.Layer<Tag, unknown>) => ({
  effect: (name: string, body: () => Effect.Effect<unknown, unknown, Tag>, timeout?: number) =>
    effectTest(name, () => Effect.asVoid(Effect.provide(body(), store)), timeout),
})
