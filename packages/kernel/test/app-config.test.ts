import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer, type Vitest } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Fiber, HashMap, Layer, Logger, Option, Stream } from "effect"
import * as AppConfig from "../src/config/AppConfig.js"
import { ConfigValidationError } from "../src/config/ConfigErrors.js"
import { defaults, maxDepth, redactedSecret, redactSecrets } from "../src/config/ConfigModel.js"
import { ConfigStore } from "../src/config/ConfigStore.js"
import * as SqlConfigStore from "../src/config/SqlConfigStore.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as Providers from "../src/models/Providers.js"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import { tempDirectory, tempSqliteStorageLayer } from "./support/files.js"
import { freshStorageLayer, postgresAvailable } from "./support/postgres.js"

/** The default catalogue, as a server without provider keys has it. */
const defaultRegistry = ModelRegistry.layer({ env: {} })

/** Every test starts from an empty stored document and its own `AppConfig` over it. */
const fresh = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE app_config SET document = ${"{}"} WHERE id = 1`
  return yield* AppConfig.make
})

/** An `AppConfig` built anew from what the database holds, as after a restart. */
const reopened = AppConfig.make

const storedDocument = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ readonly document: string }>`SELECT document FROM app_config WHERE id = 1`,
    (rows) => JSON.parse(rows[0]!.document) as unknown,
  ),
)

/** `{ a: { a: … { a: 1 } } }`, `depth` objects deep. */
const nested = (depth: number) => {
  let value: unknown = 1
  for (let level = 0; level < depth; level++) value = { a: value }
  return value
}

/** Puts `text` in the row as it is, as a hand edit or an older release would have. */
const storeText = (text: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE app_config SET document = ${text} WHERE id = 1`)

const rejectedTexts = Effect.flatMap(ConfigStore, (store) => store.rejected)

/** Error lines logged while `layer` is provided, and their `problems` annotations. */
const captureLogs = () => {
  const lines: Array<{ readonly message: string; readonly problems: unknown }> = []
  const logger = Logger.make<unknown, void>(({ message, logLevel, annotations }) => {
    if (logLevel._tag !== "Error") return
    lines.push({
      message: String(Array.isArray(message) ? message[0] : message),
      problems: Option.getOrUndefined(HashMap.get(annotations, "problems")),
    })
  })
  return {
    layer: Logger.add(logger),
    errors: () => lines.map((line) => line.message),
    problems: () => lines.map((line) => line.problems),
  }
}

const problemsOf = <A, R>(effect: Effect.Effect<A, unknown, R>) =>
  Effect.map(Effect.flip(effect), (error) => {
    expect(error).toBeInstanceOf(ConfigValidationError)
    return (error as ConfigValidationError).problems
  })

const suite = (it: Vitest.MethodsNonLive<ConfigStore | SqlClient.SqlClient | ModelRegistry.ModelRegistry>) => {
  describe("get", () => {
    it.effect("a fresh install resolves to the defaults", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const document = yield* config.get
        expect(document).toEqual({ ...defaults })
        expect(document.timezone).toBe("UTC")
        expect(document.models.operator).toEqual({ provider: "openai", model: "gpt-4.1-mini" })
      }),
    )
  })

  describe("patch", () => {
    it.effect("deep-merges into the stored document and keeps what the body does not mention", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        yield* config.patch({ identity: { name: "Jarvis" }, models: { operator: { temperature: 0.3 } } })
        const merged = yield* config.patch({
          models: { operator: { model: "gpt-4.1" } },
          schedule: {
            tasks: [
              {
                id: "5f0c9a52-3c1e-4c5e-9d59-2f8f3b8e6a11",
                name: "daily",
                prompt: "summarise my inbox",
                cron: "0 8 * * *",
              },
            ],
          },
        })
        expect(merged.identity).toEqual({ name: "Jarvis" })
        expect(merged.models.operator).toEqual({ provider: "openai", model: "gpt-4.1", temperature: 0.3 })
        expect(merged.schedule).toEqual({
          enabled: true,
          tasks: [
            {
              id: "5f0c9a52-3c1e-4c5e-9d59-2f8f3b8e6a11",
              name: "daily",
              prompt: "summarise my inbox",
              cron: "0 8 * * *",
            },
          ],
        })
        expect(yield* config.get).toEqual(merged)
        // Only what the owner set is stored: defaults changed in a later release still apply.
        expect(yield* storedDocument).toEqual({
          identity: { name: "Jarvis" },
          models: { operator: { temperature: 0.3, model: "gpt-4.1" } },
          schedule: {
            tasks: [
              {
                id: "5f0c9a52-3c1e-4c5e-9d59-2f8f3b8e6a11",
                name: "daily",
                prompt: "summarise my inbox",
                cron: "0 8 * * *",
              },
            ],
          },
        })
      }),
    )

    it.effect("replaces arrays instead of merging them", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        yield* config.patch({ mcpServers: { fs: { command: "npx", args: ["-y", "server-fs", "/tmp"] } } })
        const after = yield* config.patch({ mcpServers: { fs: { args: ["/home"] } } })
        expect(after.mcpServers.fs).toEqual({ command: "npx", args: ["/home"] })
      }),
    )

    it.effect("null deletes a key: a map entry, an optional field, or a value whose default then returns", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        yield* config.patch({
          identity: { name: "Jarvis" },
          models: { operator: { temperature: 1.2, maxTokens: 2048 } },
          mcpServers: { a: { command: "a" }, b: { url: "https://mcp.example.com/mcp" } },
        })
        const after = yield* config.patch({
          identity: { name: null },
          models: { operator: { temperature: null } },
          mcpServers: { a: null },
        })
        expect(after.identity.name).toBe("Aide")
        expect(after.models.operator).toEqual({ provider: "openai", model: "gpt-4.1-mini", maxTokens: 2048 })
        expect(Object.keys(after.mcpServers)).toEqual(["b"])
      }),
    )

    it.effect("fills plugin enabled with false and keeps plugin-specific fields", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const after = yield* config.patch({ plugins: { weather: { units: "metric", nested: { a: 1 } } } })
        expect(after.plugins.weather).toEqual({ enabled: false, units: "metric", nested: { a: 1 } })
      }),
    )

    it.effect("reports every problem of the merged document with its path", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const problems = yield* problemsOf(
          config.patch({
            timezone: "Mars/Olympus",
            models: { operator: { provider: "skynet", temperature: 5, maxTokens: 0 } },
            mcpServers: { both: { command: "x", url: "https://x.example" }, neither: {}, ftp: { url: "ftp://x" } },
            onboardingComplete: "yes",
            colour: "blue",
          }),
        )
        expect(problems).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^timezone: unknown time zone "Mars\/Olympus"/),
            expect.stringMatching(/^models\.operator\.provider: unknown provider "skynet"/),
            "models.operator.temperature: must be a number between 0 and 2",
            "models.operator.maxTokens: must be a positive integer",
            expect.stringMatching(/^mcpServers\.both: has both command and url/),
            expect.stringMatching(/^mcpServers\.neither: needs a command/),
            "mcpServers.ftp.url: must be an http(s) URL",
            expect.stringMatching(/^onboardingComplete: /),
            expect.stringMatching(/^colour: unknown key/),
          ]),
        )
        expect(problems).toHaveLength(9)
      }),
    )

    it.effect("rejects a body that is not an object", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        expect(yield* problemsOf(config.patch([1, 2]))).toEqual(["config: must be a JSON object"])
        expect(yield* problemsOf(config.patch("timezone"))).toEqual(["config: must be a JSON object"])
      }),
    )

    it.effect("stores nothing and publishes nothing when the document is invalid", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const before = yield* config.patch({ identity: { name: "Jarvis" } })
        const storedBefore = yield* storedDocument
        yield* problemsOf(config.patch({ identity: { name: "Friday" }, timezone: "Nowhere/Land" }))
        expect(yield* config.get).toEqual(before)
        expect(yield* storedDocument).toEqual(storedBefore)
        expect(yield* Effect.flatMap(reopened, (again) => again.get)).toEqual(before)
      }),
    )

    it.effect("keeps the stored document across a restart", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const patched = yield* config.patch({ timezone: "Europe/Berlin", onboardingComplete: true })
        const again = yield* reopened
        expect(yield* again.get).toEqual(patched)
      }),
    )

    it.effect("loses no patch when many run at once", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const other = yield* reopened
        const ids = Array.from({ length: 12 }, (_, index) => `plugin${index}`)
        yield* Effect.forEach(
          ids,
          (id, index) => (index % 2 === 0 ? config : other).patch({ plugins: { [id]: { enabled: true } } }),
          { concurrency: "unbounded" },
        )
        const final = yield* Effect.flatMap(reopened, (again) => again.get)
        expect(Object.keys(final.plugins).sort()).toEqual([...ids].sort())
      }),
    )
  })

  describe("secrets", () => {
    it.effect("a redacted header sent back keeps the stored value; a new value replaces it", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const created = yield* config.patch({
          mcpServers: {
            remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer s3cret", "X-Team": "a" } },
          },
        })
        const shown = redactSecrets(created)
        expect(shown.mcpServers.remote?.headers).toEqual({ Authorization: redactedSecret, "X-Team": redactedSecret })

        // A client sends back what it read, with one header changed.
        const edited = yield* config.patch({
          mcpServers: { remote: { ...shown.mcpServers.remote, name: "Remote", headers: { "X-Team": "b" } } },
        })
        expect(edited.mcpServers.remote?.headers).toEqual({ Authorization: "Bearer s3cret", "X-Team": "b" })
        const roundTrip = yield* config.patch({ mcpServers: { remote: redactSecrets(edited).mcpServers.remote } })
        expect(roundTrip.mcpServers.remote?.headers).toEqual({ Authorization: "Bearer s3cret", "X-Team": "b" })
        expect(roundTrip.mcpServers.remote?.name).toBe("Remote")
      }),
    )

    it.effect("a redacted placeholder with no stored value behind it is a validation error", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const problems = yield* problemsOf(
          config.patch({ mcpServers: { remote: { url: "https://x.example", headers: { Token: redactedSecret } } } }),
        )
        expect(problems).toEqual([expect.stringMatching(/^mcpServers\.remote\.headers\.Token: /)])
      }),
    )
  })

  describe("changes", () => {
    it.effect("emits the current document, then each patched one", () =>
      Effect.gen(function* () {
        const config = yield* fresh
        const subscribed = yield* Deferred.make<void>()
        const fiber = yield* config.changes.pipe(
          Stream.tap(() => Deferred.succeed(subscribed, undefined)),
          Stream.take(3),
          Stream.runCollect,
          Effect.fork,
        )
        yield* Deferred.await(subscribed)
        yield* config.patch({ timezone: "Asia/Tokyo" })
        yield* Effect.flip(config.patch({ timezone: "Nowhere/Land" }))
        yield* config.patch({ identity: { name: "Jarvis" } })
        const seen = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
        expect(seen.map((document) => [document.timezone, document.identity.name])).toEqual([
          ["UTC", "Aide"],
          ["Asia/Tokyo", "Aide"],
          ["Asia/Tokyo", "Jarvis"],
        ])
      }),
    )
  })

  describe("start", () => {
    it.effect(
      "an invalid stored section falls back to its default; the valid ones stay; the next patch replaces the row",
      () =>
        Effect.gen(function* () {
          const document = JSON.stringify({ timezone: "Nowhere/Land", identity: { name: "Jarvis" }, legacy: true })
          yield* storeText(document)
          const log = captureLogs()
          const config = yield* Effect.provide(reopened, log.layer)
          const resolved = yield* config.get
          expect(resolved.timezone).toBe("UTC")
          expect(resolved.identity.name).toBe("Jarvis")
          expect(log.errors()).toEqual([expect.stringMatching(/^stored config rejected/)])
          // The next patch builds on what is in use; the bad text stays retrievable.
          const patched = yield* config.patch({ onboardingComplete: true })
          expect(patched).toMatchObject({ timezone: "UTC", identity: { name: "Jarvis" }, onboardingComplete: true })
          expect(yield* storedDocument).toEqual({ identity: { name: "Jarvis" }, onboardingComplete: true })
          const rejected = yield* rejectedTexts
          expect(rejected.filter((entry) => entry.document === document)).toEqual([
            {
              document,
              reason: expect.stringMatching(/^(?=.*timezone: unknown time zone)(?=.*legacy: unknown key)/),
              rejectedAt: expect.any(String),
            },
          ])
        }),
    )

    it.effect(
      "a stored document nested 4,000 levels deep: start uses the defaults, logs an error, keeps the text; patches work",
      () =>
        Effect.gen(function* () {
          const document = JSON.stringify({ identity: { name: "Jarvis" }, plugins: { p: nested(4_000) } })
          yield* storeText(document)
          const log = captureLogs()
          const config = yield* Effect.provide(reopened, log.layer)
          expect((yield* config.get).plugins).toEqual({})
          expect((yield* config.get).identity.name).toBe("Jarvis")
          expect(log.errors()).toEqual([expect.stringMatching(/^stored config rejected/)])
          expect(log.problems()).toEqual([[`plugins.p.a.…: nests more than ${maxDepth} levels deep`]])
          const patched = yield* config.patch({ plugins: { weather: { enabled: true } } })
          expect(patched.plugins).toEqual({ weather: { enabled: true } })
          expect(yield* storedDocument).toEqual({
            identity: { name: "Jarvis" },
            plugins: { weather: { enabled: true } },
          })
          expect((yield* rejectedTexts).map((entry) => entry.document)).toContain(document)
          // A restart finds a valid document: nothing more is rejected.
          const again = captureLogs()
          yield* Effect.provide(reopened, again.layer)
          expect(again.errors()).toEqual([])
        }),
    )

    it.effect("a stored text that is not a JSON object: start uses the defaults and keeps the text", () =>
      Effect.gen(function* () {
        for (const document of ["{ not json", "[1, 2]", "null"]) {
          yield* storeText(document)
          const log = captureLogs()
          const config = yield* Effect.provide(reopened, log.layer)
          expect(yield* config.get).toEqual({ ...defaults })
          expect(log.errors()).toHaveLength(1)
          expect((yield* rejectedTexts).map((entry) => entry.document)).toContain(document)
          expect((yield* config.patch({ timezone: "Asia/Tokyo" })).timezone).toBe("Asia/Tokyo")
          expect(yield* storedDocument).toEqual({ timezone: "Asia/Tokyo" })
        }
      }),
    )

    it.effect("the same rejected text is set aside once, however many starts find it", () =>
      Effect.gen(function* () {
        const document = JSON.stringify({ colour: "blue", at: "once" })
        yield* storeText(document)
        yield* reopened
        yield* reopened
        expect((yield* rejectedTexts).filter((entry) => entry.document === document)).toHaveLength(1)
      }),
    )
  })

  describe("depth", () => {
    it.effect(`a patch nesting deeper than ${maxDepth} levels is a validation error, even 10,000 deep`, () =>
      Effect.gen(function* () {
        const config = yield* fresh
        for (const depth of [maxDepth, 10_000]) {
          const problems = yield* problemsOf(config.patch({ plugins: { p: nested(depth) } }))
          expect(problems).toEqual([`plugins.p.a.…: nests more than ${maxDepth} levels deep`])
        }
        expect(yield* storedDocument).toEqual({})
        // Up to the bound is fine: the document, plugins and p take 3 levels.
        const within = yield* config.patch({ plugins: { p: nested(maxDepth - 3) } })
        expect(within.plugins.p).toBeDefined()
      }),
    )
  })
}

describe("AppConfig", () => {
  layer(SqlConfigStore.layer.pipe(Layer.provideMerge(tempSqliteStorageLayer), Layer.merge(defaultRegistry)), {
    timeout: 30_000,
  })("SQLite", suite)

  describe.skipIf(!postgresAvailable)("PostgreSQL", () => {
    layer(SqlConfigStore.layer.pipe(Layer.provideMerge(freshStorageLayer), Layer.merge(defaultRegistry)), {
      timeout: 60_000,
    })(suite)
  })
})

layer(Layer.empty)("AppConfig on a SQLite file", (it) => {
  it.scoped("a config patched before a restart is there after it", () =>
    Effect.gen(function* () {
      const filename = Path.join(yield* tempDirectory, "aide.db")
      const kernelOnFile = AppConfig.layer.pipe(
        Layer.provide(SqlConfigStore.layer),
        Layer.provide(SqliteStorage.layer({ filename })),
        Layer.provide(defaultRegistry),
      )
      const patched = yield* Effect.flatMap(AppConfig.AppConfig, (config) =>
        config.patch({ timezone: "America/New_York", mcpServers: { fs: { command: "mcp-fs" } } }),
      ).pipe(Effect.provide(kernelOnFile))
      const afterRestart = yield* Effect.flatMap(AppConfig.AppConfig, (config) => config.get).pipe(
        Effect.provide(kernelOnFile),
      )
      expect(afterRestart).toEqual(patched)
      expect(afterRestart.mcpServers).toEqual({ fs: { command: "mcp-fs" } })
    }),
  )
})

layer(AppConfig.layerMemory.pipe(Layer.provide(defaultRegistry)))("AppConfig.layerMemory", (it) => {
  it.effect("works without storage", () =>
    Effect.gen(function* () {
      const config = yield* AppConfig.AppConfig
      const patched = yield* config.patch({ personality: { systemPrompt: "Be terse." } })
      expect(patched.personality.systemPrompt).toBe("Be terse.")
      expect(Either.isRight(AppConfig.resolve({}, Providers.providerIds))).toBe(true)
    }),
  )
})
