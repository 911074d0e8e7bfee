import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { generateText } from "ai"
import { Effect } from "effect"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import { providerIds } from "../src/models/Providers.js"

/** No server answers: a local server's default address is not probed for real. */
const unreachable: typeof fetch = () => Promise.reject(new TypeError("fetch failed"))

const registry = (env: Record<string, string | undefined>) => ModelRegistry.make({ env })

const configured = (env: Record<string, string | undefined>) =>
  Effect.map(ModelRegistry.make({ env, fetch: unreachable }).providers, (providers) =>
    Object.fromEntries(providers.map((provider) => [provider.id, provider.configured])),
  )

interface Captured {
  readonly url: string
  readonly authorization: string | undefined
  readonly body: any
}

/** A loopback server answering every request as an OpenAI chat completion, recording what it got. */
const fakeChatCompletions = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly requests: Array<Captured>; readonly server: Http.Server }>((resume) => {
    const requests: Array<Captured> = []
    const server = Http.createServer((request, response) => {
      let text = ""
      request.on("data", (chunk) => {
        text += chunk
      })
      request.on("end", () => {
        requests.push({ url: request.url ?? "", authorization: request.headers.authorization, body: JSON.parse(text) })
        response.setHeader("content-type", "application/json")
        response.end(
          JSON.stringify({
            id: "chatcmpl-1",
            object: "chat.completion",
            created: 0,
            model: "fake",
            choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        )
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1`, requests, server }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    }),
)

describe("ModelRegistry", () => {
  describe("providers", () => {
    it.effect("lists the catalogue with configured flags from the environment passed in", () =>
      Effect.gen(function* () {
        const providers = yield* ModelRegistry.make({ env: { OPENAI_API_KEY: "sk-test" }, fetch: unreachable })
          .providers
        expect(providers.map((provider) => provider.id)).toEqual([...providerIds])
        for (const provider of providers) {
          expect(provider).toMatchObject({ gateway: null, docUrl: expect.stringMatching(/^https:\/\//) })
          expect(provider.envVars.length).toBeGreaterThan(0)
        }
        expect(providers.find((provider) => provider.id === "openai")).toMatchObject({
          configured: true,
          envVars: ["OPENAI_API_KEY"],
          models: expect.arrayContaining(["gpt-4.1-mini"]),
        })
        expect(Object.values(yield* configured({}))).toEqual(providerIds.map(() => false))
        expect(
          yield* configured({
            ANTHROPIC_API_KEY: "a",
            GOOGLE_GENERATIVE_AI_API_KEY: "g",
            OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1",
            GROQ_API_KEY: "gsk",
            OLLAMA_BASE_URL: "http://gpu-box:11434/v1",
          }),
        ).toMatchObject({
          openai: false,
          anthropic: true,
          google: true,
          "openai-compatible": true,
          groq: true,
          ollama: true,
          mistral: false,
          lmstudio: false,
        })
      }),
    )

    it.effect("counts an empty or blank variable as unset", () =>
      Effect.gen(function* () {
        expect(yield* configured({ OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "  " })).toMatchObject({
          openai: false,
          anthropic: false,
        })
      }),
    )
  })

  describe("languageModel", () => {
    it.effect("names the variable to set when the provider is not configured", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(registry({}).languageModel({ provider: "openai", model: "gpt-4.1-mini" }))
        expect(error._tag).toBe("ModelNotConfigured")
        expect(error.message).toBe("provider openai is not configured: set OPENAI_API_KEY")
        const compatible = yield* Effect.flip(
          registry({ OPENAI_COMPATIBLE_API_KEY: "k" }).languageModel({
            provider: "openai-compatible",
            model: "llama3",
          }),
        )
        expect(compatible.message).toBe("provider openai-compatible is not configured: set OPENAI_COMPATIBLE_BASE_URL")
      }),
    )

    it.effect("fails with UnknownProvider for an id outside the catalogue", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(registry({}).languageModel({ provider: "skynet", model: "t-800" }))
        expect(error._tag).toBe("UnknownProvider")
        expect(error.message).toMatch(/^unknown provider skynet/)
      }),
    )

    it.effect("maps temperature and maxTokens to call settings, and leaves out what is unset", () =>
      Effect.gen(function* () {
        const models = registry({ OPENAI_API_KEY: "sk", ANTHROPIC_API_KEY: "a", GOOGLE_GENERATIVE_AI_API_KEY: "g" })
        const full = yield* models.languageModel({
          provider: "openai",
          model: "gpt-4.1",
          temperature: 0.2,
          maxTokens: 512,
        })
        expect(full.settings).toEqual({ temperature: 0.2, maxOutputTokens: 512 })
        const bare = yield* models.languageModel({ provider: "anthropic", model: "claude-sonnet-4-5" })
        expect(bare.settings).toEqual({})
        expect(bare.model).toMatchObject({ modelId: "claude-sonnet-4-5", provider: "anthropic.messages" })
        const google = yield* models.languageModel({ provider: "google", model: "gemini-2.5-flash" })
        expect(google.model).toMatchObject({ modelId: "gemini-2.5-flash" })
      }),
    )

    it.scoped("OpenAI uses Chat Completions at OPENAI_BASE_URL with the key and settings", () =>
      Effect.gen(function* () {
        const fake = yield* fakeChatCompletions
        const { model, settings } = yield* registry({
          OPENAI_API_KEY: "sk-test",
          OPENAI_BASE_URL: fake.url,
        }).languageModel({ provider: "openai", model: "gpt-4.1-mini", temperature: 0.5, maxTokens: 64 })
        const result = yield* Effect.promise(() => generateText({ model, ...settings, prompt: "hi" }))
        expect(result.text).toBe("hello")
        expect(fake.requests).toHaveLength(1)
        expect(fake.requests[0]).toMatchObject({
          url: "/v1/chat/completions",
          authorization: "Bearer sk-test",
          body: { model: "gpt-4.1-mini", temperature: 0.5, max_tokens: 64 },
        })
      }),
    )

    it.scoped("openai-compatible talks to OPENAI_COMPATIBLE_BASE_URL, with the optional key", () =>
      Effect.gen(function* () {
        const fake = yield* fakeChatCompletions
        const withoutKey = yield* registry({ OPENAI_COMPATIBLE_BASE_URL: fake.url }).languageModel({
          provider: "openai-compatible",
          model: "llama3.2",
        })
        yield* Effect.promise(() => generateText({ model: withoutKey.model, prompt: "hi" }))
        const withKey = yield* registry({
          OPENAI_COMPATIBLE_BASE_URL: fake.url,
          OPENAI_COMPATIBLE_API_KEY: "or-key",
        }).languageModel({ provider: "openai-compatible", model: "meta/llama" })
        yield* Effect.promise(() => generateText({ model: withKey.model, prompt: "hi" }))
        expect(fake.requests.map((request) => [request.url, request.authorization, request.body.model])).toEqual([
          ["/v1/chat/completions", undefined, "llama3.2"],
          ["/v1/chat/completions", "Bearer or-key", "meta/llama"],
        ])
      }),
    )
  })
})

describe("ModelRegistry.defaultOperator", () => {
  const catalogueDefault = { provider: "openai", model: "gpt-4.1-mini" }
  const asked: Array<string> = []
  const counting: typeof fetch = (input) => {
    asked.push(String(input))
    return Promise.reject(new TypeError("fetch failed"))
  }
  const defaultFor = (env: Record<string, string | undefined>) =>
    ModelRegistry.make({ env, fetch: counting }).defaultOperator!(catalogueDefault)

  it.effect("keeps the catalogue's default when its provider is configured, or when none is", () =>
    Effect.gen(function* () {
      expect(yield* defaultFor({ OPENAI_API_KEY: "sk-x", ANTHROPIC_API_KEY: "a" })).toBe(catalogueDefault)
      expect(yield* defaultFor({})).toBe(catalogueDefault)
      // A local server's default address nobody chose is not asked.
      expect(asked).toEqual([])
    }),
  )

  it.effect("is the first provider the host configured, with its first model", () =>
    Effect.gen(function* () {
      const anthropic = yield* defaultFor({ ANTHROPIC_API_KEY: "a", GROQ_API_KEY: "g" })
      expect(anthropic.provider).toBe("anthropic")
      expect(anthropic.model).not.toBe("")
      expect(yield* defaultFor({ GROQ_API_KEY: "g" })).toEqual({ provider: "groq", model: "llama-3.3-70b-versatile" })
    }),
  )

  it.effect("skips a configured server that lists no model (none to choose)", () =>
    Effect.gen(function* () {
      expect(yield* defaultFor({ OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1" })).toBe(catalogueDefault)
    }),
  )
})
