import * as Path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { generateText } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { Effect, HashMap, Layer, Logger, Option, Redacted } from "effect"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as AppConfig from "../src/config/AppConfig.js"
import { ConfigValidationError } from "../src/config/ConfigErrors.js"
import * as Kernel from "../src/Kernel.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as Providers from "../src/models/Providers.js"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import { tempDirectory } from "./support/files.js"

/** A provider an embedder adds: Amazon Bedrock, here answering from a mock model. */
const bedrock: Providers.ProviderDefinition = {
  id: "bedrock",
  name: "Amazon Bedrock",
  models: ["anthropic.claude-sonnet-4-5"],
  requiredEnv: ["AWS_REGION"],
  envVars: ["AWS_REGION"],
  docUrl: "https://docs.aws.amazon.com/bedrock/latest/userguide/models-supported.html",
  load:
    async ({ env }) =>
    (modelId) =>
      new MockLanguageModelV3({
        modelId,
        doGenerate: async () => ({
          content: [{ type: "text", text: `bedrock in ${env("AWS_REGION")}` }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 1, text: 1, reasoning: undefined },
          },
          warnings: [],
        }),
      }),
}

const withBedrock = ModelRegistry.layer({
  env: { AWS_REGION: "eu-west-1" },
  providers: [...Providers.catalogue, bedrock],
})
const onlyBedrock = ModelRegistry.layer({ env: { AWS_REGION: "eu-west-1" }, providers: [bedrock] })

/** The default kernel on `dataDir`, with `modelRegistry`: building it twice on one directory is a restart. */
/** The default kernel (titles included), with its database beside it for the tests to read. */
const kernel = (dataDir: string, modelRegistry?: Layer.Layer<ModelRegistry.ModelRegistry>) => {
  const storage = SqliteStorage.layer({ filename: Path.join(dataDir, "aide.db") })
  return Layer.merge(
    Kernel.layer({
      dataDir,
      storage,
      signingSecret: Redacted.make(new Uint8Array(32).fill(7)),
      passwordHasher: PasswordHasher.layerTest,
      scheduler: { enabled: false },
      ...(modelRegistry === undefined ? {} : { modelRegistry }),
    }),
    storage,
  )
}

const problemsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) =>
    error instanceof ConfigValidationError ? error.problems : [String(error)],
  )

const patch = (body: unknown) => Effect.flatMap(AppConfig.AppConfig, (config) => config.patch(body))

describe("models.operator.provider is checked against the registry in use", () => {
  it.scoped("Kernel.layer({ modelRegistry }): a provider the embedder added is selectable and answers", () =>
    Effect.gen(function* () {
      const dir = yield* tempDirectory
      const answer = yield* Effect.gen(function* () {
        const config = yield* patch({
          models: { operator: { provider: "bedrock", model: "anthropic.claude-sonnet-4-5" } },
        })
        const registry = yield* ModelRegistry.ModelRegistry
        expect(registry.providerIds).toContain("bedrock")
        const { model } = yield* registry.languageModel(config.models.operator)
        return yield* Effect.promise(() => generateText({ model, prompt: "hi" }))
      }).pipe(Effect.provide(kernel(dir, withBedrock)))
      expect(answer.text).toBe("bedrock in eu-west-1")
    }),
  )

  it.scoped("an id the registry does not know is refused, naming the ids it knows; nothing is stored", () =>
    Effect.gen(function* () {
      const dir = yield* tempDirectory
      yield* Effect.gen(function* () {
        expect(yield* problemsOf(patch({ models: { operator: { provider: "openai", model: "gpt-4.1" } } }))).toEqual([
          'models.operator.provider: unknown provider "openai" (known: bedrock)',
        ])
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT document FROM app_config`).toEqual([{ document: "{}" }])
      }).pipe(Effect.provide(kernel(dir, onlyBedrock)))
      // The default registry knows the catalogue, presets included, and not bedrock.
      yield* Effect.gen(function* () {
        const [problem] = yield* problemsOf(patch({ models: { operator: { provider: "bedrock" } } }))
        expect(problem).toBe(
          `models.operator.provider: unknown provider "bedrock" (known: ${Providers.providerIds.join(", ")})`,
        )
        expect(problem).toContain("ollama, lmstudio")
        const groq = yield* patch({ models: { operator: { provider: "groq", model: "llama-3.3-70b-versatile" } } })
        expect(groq.models.operator).toEqual({ provider: "groq", model: "llama-3.3-70b-versatile" })
      }).pipe(Effect.provide(kernel(dir)))
    }),
  )

  it.scoped("the problem takes its place among the others: after timezone, before the operator's other fields", () =>
    Effect.gen(function* () {
      const dir = yield* tempDirectory
      const problems = yield* problemsOf(
        patch({ timezone: "Mars/Olympus", models: { operator: { provider: "skynet", temperature: 5 } }, colour: 1 }),
      ).pipe(Effect.provide(kernel(dir)))
      expect(problems.map((problem) => problem.slice(0, problem.indexOf(":")))).toEqual([
        "colour",
        "timezone",
        "models.operator.provider",
        "models.operator.temperature",
      ])
    }),
  )

  it.scoped("a registry without the default provider starts, and the default is not checked until one is named", () =>
    Effect.gen(function* () {
      const config = yield* AppConfig.AppConfig
      expect((yield* config.get).models.operator.provider).toBe("openai")
      const patched = yield* config.patch({ models: { operator: { temperature: 0.4 } } })
      expect(patched.models.operator).toEqual({ provider: "openai", model: "gpt-4.1-mini", temperature: 0.4 })
      // What a chat then says: which ids there are.
      const registry = yield* ModelRegistry.ModelRegistry
      const error = yield* Effect.flip(registry.languageModel(patched.models.operator))
      expect(error.message).toBe("unknown provider openai (known: bedrock)")
    }).pipe(
      Effect.provide(
        AppConfig.layerMemory.pipe(Layer.provideMerge(ModelRegistry.layer({ env: {}, providers: [bedrock] }))),
      ),
    ),
  )

  it.scoped("a registry without the default provider, one of its own configured: that one is the default", () =>
    Effect.gen(function* () {
      const config = yield* AppConfig.AppConfig
      expect((yield* config.get).models.operator).toEqual({ provider: "bedrock", model: "anthropic.claude-sonnet-4-5" })
      // Settings of the operator other than its provider and model keep the default in use.
      const patched = yield* config.patch({ models: { operator: { temperature: 0.4 } } })
      expect(patched.models.operator).toEqual({
        provider: "bedrock",
        model: "anthropic.claude-sonnet-4-5",
        temperature: 0.4,
      })
    }).pipe(Effect.provide(AppConfig.layerMemory.pipe(Layer.provideMerge(onlyBedrock)))),
  )

  it.scoped("a stored provider the registry no longer knows: the server starts, models falls back to its default", () =>
    Effect.gen(function* () {
      const dir = yield* tempDirectory
      yield* patch({ identity: { name: "Jarvis" }, models: { operator: { provider: "bedrock", model: "m" } } }).pipe(
        Effect.provide(kernel(dir, withBedrock)),
      )
      const problems: Array<unknown> = []
      const logger = Logger.make<unknown, void>(({ logLevel, annotations }) => {
        if (logLevel._tag === "Error") problems.push(Option.getOrUndefined(HashMap.get(annotations, "problems")))
      })
      // A restart without bedrock (the embedder dropped it).
      yield* Effect.gen(function* () {
        const config = yield* AppConfig.AppConfig
        expect((yield* config.get).models.operator).toEqual({ provider: "openai", model: "gpt-4.1-mini" })
        expect((yield* config.get).identity.name).toBe("Jarvis")
        expect(problems).toEqual([[expect.stringMatching(/^models\.operator\.provider: unknown provider "bedrock"/)]])
        const sql = yield* SqlClient.SqlClient
        const rejected = yield* sql<{ readonly reason: string }>`SELECT reason FROM config_rejected`
        expect(rejected).toEqual([{ reason: expect.stringMatching(/unknown provider "bedrock"/) }])
        // Patches work again, on what is in use.
        const patched = yield* config.patch({ timezone: "Europe/Berlin" })
        expect(patched).toMatchObject({ identity: { name: "Jarvis" }, timezone: "Europe/Berlin" })
      }).pipe(Effect.provide(kernel(dir).pipe(Layer.provide(Logger.replace(Logger.defaultLogger, logger)))))
    }),
  )
})
