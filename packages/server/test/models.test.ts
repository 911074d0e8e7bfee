import { Providers } from "@aide/kernel"
import { FakeModelServer } from "@aide/testing"
import { afterEach, describe, expect, it } from "vitest"
import { request, setup, startServer, type TestServer } from "./support/server.js"

/** Servers on this machine: `configured` follows whether they answer at their default address. */
const local = new Set(["ollama", "lmstudio", "vllm", "llamacpp"])

describe("GET /api/models", () => {
  let server: TestServer | undefined
  let fake: FakeModelServer | undefined
  afterEach(async () => {
    await server?.close()
    await fake?.close()
    server = fake = undefined
  })

  const listProviders = async (env: Record<string, string | undefined>) => {
    server = await startServer({ env })
    const { token } = await setup(server)
    const response = await request(`${server.url}/api/models`, { token })
    expect(response.status).toBe(200)
    return response.body as { providers: Array<Record<string, unknown>> }
  }

  it("lists every provider of the registry with the SPEC fields", async () => {
    const { providers } = await listProviders({})
    expect(providers.map((provider) => provider.id)).toEqual([...Providers.providerIds])
    expect(providers.map((provider) => provider.id)).toEqual(
      expect.arrayContaining(["openai", "anthropic", "google", "openai-compatible", "ollama", "groq", "mistral"]),
    )
    for (const provider of providers) {
      expect(Object.keys(provider).sort()).toEqual(
        ["configured", "docUrl", "envVars", "gateway", "id", "models", "name"].sort(),
      )
      expect(provider).toMatchObject({
        name: expect.any(String),
        models: expect.any(Array),
        configured: local.has(provider.id as string) ? expect.any(Boolean) : false,
        docUrl: expect.stringMatching(/^https:\/\//),
        gateway: null,
        envVars: expect.arrayContaining([expect.stringMatching(/^[A-Z_]+$/)]),
      })
    }
    expect(providers[0]).toMatchObject({
      envVars: ["OPENAI_API_KEY"],
      models: expect.arrayContaining(["gpt-4.1-mini"]),
    })
  })

  it("reports configured from the server's environment, never the keys themselves", async () => {
    const { providers } = await listProviders({
      OPENAI_API_KEY: "sk-test-secret-key",
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1",
      ANTHROPIC_API_KEY: "",
      GROQ_API_KEY: "gsk-test-secret-key",
      GROQ_BASE_URL: "http://127.0.0.1:9/openai/v1",
    })
    expect(Object.fromEntries(providers.map((provider) => [provider.id, provider.configured]))).toMatchObject({
      openai: true,
      anthropic: false,
      google: false,
      "openai-compatible": true,
      groq: true,
      mistral: false,
    })
    // Nothing answers at port 9: the suggestions stand in for the served models.
    expect(providers.find((provider) => provider.id === "groq")!.models).toContain("llama-3.3-70b-versatile")
    const text = JSON.stringify(providers)
    for (const secret of ["sk-test-secret-key", "gsk-test-secret-key", "127.0.0.1:9"])
      expect(text).not.toContain(secret)
  })

  it("lists the models an OpenAI-compatible server serves, for the generic provider and the presets", async () => {
    fake = await FakeModelServer.start({ models: ["llama3.2:3b", "qwen3:8b"] })
    const { providers } = await listProviders({
      OPENAI_COMPATIBLE_BASE_URL: fake.url,
      OLLAMA_BASE_URL: fake.url,
      GROQ_API_KEY: "gsk",
      GROQ_BASE_URL: fake.url,
    })
    for (const id of ["openai-compatible", "ollama", "groq"]) {
      expect(
        providers.find((provider) => provider.id === id),
        id,
      ).toMatchObject({
        configured: true,
        models: ["llama3.2:3b", "qwen3:8b"],
      })
    }
  })

  it("answers 401 without a token", async () => {
    server = await startServer({ env: {} })
    const response = await request(`${server.url}/api/models`)
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: "unauthorized" })
  })
})
