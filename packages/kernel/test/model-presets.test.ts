import { FakeModelServer } from "@aide/testing"
import { describe, expect, it } from "@effect/vitest"
import { streamText } from "ai"
import { Effect } from "effect"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as OpenAICompatible from "../src/models/OpenAICompatible.js"

/** The fake OpenAI-compatible model server on loopback, closed with the scope. */
const fakeServer = Effect.acquireRelease(
  Effect.promise(() => FakeModelServer.start()),
  (server) => Effect.promise(() => server.close()),
)

/** The documented override variable of a preset: `<ID>_BASE_URL`. */
const baseUrlVar = (id: string) => `${id.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_BASE_URL`

const streamedText = (model: ModelRegistry.ResolvedModel["model"], prompt: string) =>
  Effect.promise(async () => {
    const result = streamText({ model, prompt })
    let text = ""
    for await (const delta of result.textStream) text += delta
    return text
  })

describe("OpenAI-compatible presets", () => {
  it.scoped("every preset streams from the server at its <ID>_BASE_URL, with its key when it has one", () =>
    Effect.gen(function* () {
      const server = yield* fakeServer
      for (const preset of OpenAICompatible.presets) {
        // The variables it needs, each set to something recognisable; the address points at the fake.
        const env: Record<string, string> = { [baseUrlVar(preset.id)]: server.url }
        for (const name of preset.requiredEnv) env[name] ??= `key-of-${preset.id}`
        server.reset()
        server.script({ text: ["Hello ", "from ", preset.id] })
        const { model } = yield* ModelRegistry.make({ env }).languageModel({ provider: preset.id, model: "some-model" })
        expect(yield* streamedText(model, "Hi")).toBe(`Hello from ${preset.id}`)
        expect(server.requests).toHaveLength(1)
        const [request] = server.requests
        expect(request!.path).toBe("/v1/chat/completions")
        expect(request!.body.model).toBe("some-model")
        const key = preset.requiredEnv.find((name) => name !== baseUrlVar(preset.id))
        expect(request!.headers.authorization, preset.id).toBe(
          key === undefined ? undefined : `Bearer key-of-${preset.id}`,
        )
      }
    }),
  )

  it.effect("a hosted preset names its key variable until it is set", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(ModelRegistry.make({ env: {} }).languageModel({ provider: "groq", model: "m" }))
      expect(error).toMatchObject({ _tag: "ModelNotConfigured", envVars: ["GROQ_API_KEY"] })
      expect(error.message).toBe("provider groq is not configured: set GROQ_API_KEY")
    }),
  )

  it.effect("a local preset needs no variable: it talks to its default address", () =>
    Effect.gen(function* () {
      for (const provider of ["ollama", "lmstudio", "vllm", "llamacpp"]) {
        const { model } = yield* ModelRegistry.make({ env: {} }).languageModel({ provider, model: "llama3.2" })
        expect(model).toMatchObject({ modelId: "llama3.2", provider: `${provider}.chat` })
      }
    }),
  )

  it.scoped("a local preset's optional key is sent when set", () =>
    Effect.gen(function* () {
      const server = yield* fakeServer
      const { model } = yield* ModelRegistry.make({
        env: { VLLM_BASE_URL: server.url, VLLM_API_KEY: "token-abc" },
      }).languageModel({ provider: "vllm", model: "Qwen/Qwen3-8B" })
      expect(yield* streamedText(model, "Hi")).toBe("Hello from the fake model.")
      expect(server.requests[0]!.headers.authorization).toBe("Bearer token-abc")
    }),
  )

  it.effect("every preset has a distinct id, an https docUrl and at least one variable to show", () =>
    Effect.gen(function* () {
      const ids = OpenAICompatible.presets.map((preset) => preset.id)
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids).toEqual(
        expect.arrayContaining(["ollama", "lmstudio", "openrouter", "groq", "deepseek", "mistral", "xai", "together"]),
      )
      for (const preset of OpenAICompatible.presets) {
        expect(preset.docUrl).toMatch(/^https:\/\//)
        expect(preset.envVars.length).toBeGreaterThan(0)
        expect(preset.envVars.every((name) => /^[A-Z][A-Z0-9_]*$/.test(name))).toBe(true)
      }
    }),
  )
})
