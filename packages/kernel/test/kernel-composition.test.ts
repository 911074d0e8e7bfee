import { createTestDatabase, postgresAvailable, tempDirectory } from "@aide/testing/effect"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as TitleGenerator from "../src/chat/TitleGenerator.js"
import * as Kernel from "../src/Kernel.js"
import * as NoPlugins from "../src/plugins/loader/NoPlugins.js"
import * as ManualScheduler from "../src/scheduler/ManualScheduler.js"
import * as PostgresStorage from "../src/storage/PostgresStorage.js"
import * as MemoryStores from "../src/stores/MemoryStores.js"
import * as SqlStores from "../src/stores/SqlStores.js"
import { catalog, type StoreName, type Stores } from "../src/stores/Stores.js"

const quick = {
  passwordHasher: PasswordHasher.layerTest,
  titles: TitleGenerator.layerFallback,
  pluginLoaderLayer: NoPlugins.layer,
  scheduler: { enabled: false },
}

/** The names of the Tags `kernel` provides, of those in `Stores.catalog`. */
const storesProvided = <E>(kernel: Layer.Layer<Kernel.KernelServices, E>) =>
  Effect.scoped(
    Effect.map(Layer.build(kernel), (context) =>
      catalog.tags.filter((tag) => Option.isSome(Context.getOption(context, tag))).map((tag) => tag.key),
    ),
  )

const everyStore = catalog.tags.map((tag) => tag.key)

describe("the store record (Stores.catalog) drives every kernel", () => {
  it("lists each store once, with its option name and schema", () => {
    expect(new Set(catalog.names).size).toBe(catalog.names.length)
    expect(new Set(everyStore).size).toBe(catalog.names.length)
    expect(catalog.schemas).toHaveLength(catalog.names.length)
    expect(catalog.names).toContain("webhookReplays")
    // The option names, the `Stores` union and the derived Layers are the record's (checked by tsc).
    expectTypeOf<keyof Kernel.StoreOptions>().toEqualTypeOf<StoreName | "storage">()
    expectTypeOf<Layer.Layer.Success<typeof SqlStores.layer>>().toEqualTypeOf<Stores>()
    expectTypeOf<Layer.Layer.Success<typeof MemoryStores.layer>>().toEqualTypeOf<Stores>()
  })

  it.scopedLive("Kernel.layer (SQLite) provides every store of the record", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDirectory
      expect(yield* storesProvided(Kernel.layer({ dataDir, ...quick }))).toEqual(everyStore)
    }),
  )

  it.scopedLive("Kernel.layerMemory provides every store of the record", () =>
    Effect.gen(function* () {
      expect(yield* storesProvided(Kernel.layerMemory(quick))).toEqual(everyStore)
    }),
  )

  describe.skipIf(!postgresAvailable)("PostgreSQL", () => {
    it.scopedLive("Kernel.layer on PostgreSQL provides every store of the record", () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDirectory
        const created = yield* Effect.acquireRelease(
          Effect.promise(() => createTestDatabase()),
          (database) => Effect.promise(() => database.drop()),
        )
        const storage = PostgresStorage.layer({ url: Redacted.make(created.url), maxConnections: 4 })
        expect(yield* storesProvided(Kernel.layer({ dataDir, storage, ...quick }))).toEqual(everyStore)
      }),
    )
  })
})

describe("a scheduler Layer's other services are in the kernel's type", () => {
  it.scopedLive("Kernel.layerMemory({ schedulerLayer: ManualScheduler.layer() }) provides ManualScheduler", () =>
    Effect.gen(function* () {
      const kernel = Kernel.layerMemory({ ...quick, schedulerLayer: ManualScheduler.layer() })
      expectTypeOf(kernel).toEqualTypeOf<
        Layer.Layer<Kernel.KernelServices | ManualScheduler.ManualScheduler, Kernel.KernelError>
      >()
      const fired = yield* Effect.flatMap(ManualScheduler.ManualScheduler, (manual) => manual.runDue).pipe(
        Effect.provide(kernel),
      )
      expect(fired).toBeDefined()
    }),
  )

  it("Kernel.layer and Kernel.services say the same; without a scheduler Layer, only the services", () => {
    const dataDir = "unused"
    expectTypeOf(Kernel.layer({ dataDir, schedulerLayer: ManualScheduler.layer() })).toEqualTypeOf<
      Layer.Layer<Kernel.KernelServices | ManualScheduler.ManualScheduler, Kernel.KernelError>
    >()
    expectTypeOf(Kernel.services({ schedulerLayer: ManualScheduler.layer() })).toMatchTypeOf<
      Layer.Layer<ManualScheduler.ManualScheduler, unknown, unknown>
    >()
    expectTypeOf(Kernel.layerMemory()).toEqualTypeOf<Layer.Layer<Kernel.KernelServices, Kernel.KernelError>>()
    expectTypeOf(Kernel.layer({ dataDir })).toEqualTypeOf<Layer.Layer<Kernel.KernelServices, Kernel.KernelError>>()
  })
})
