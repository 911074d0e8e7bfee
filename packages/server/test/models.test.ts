import { afterEach, describe, expect, it } from "vitest"
import { request, setup, startServer, type TestServer } from "./support/server.js"

describe("GET /api/models", () => {
  let server: TestServer | undefined
  afterEach(() => server?.close())

  const listProviders = async (env: Record<string, string | undefined>) => {
    server = await startServer({ env })
    const { token } = await setup(server)
    const response = await request(`${server.url}/api/models`, { token })
    expect(response.status).toBe(200)
    return response.body as { providers: Array<Record<string, unknown>> }
  }

  it("lists every provider with the SPEC fields", async () => {
    const { providers } = await listProviders({})
    expect(providers.map((provider) => provider.id)).toEqual(["openai", "anthropic", "google", "openai-compatible"])
    for (const provider of providers) {
      expect(Object.keys(provider).sort()).toEqual(
        ["configured", "docUrl", "envVars", "gateway", "id", "models", "name"].sort(),
      )
      expect(provider).toMatchObject({
        name: expect.any(String),
        models: expect.any(Array),
        configured: false,
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
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
      ANTHROPIC_API_KEY: "",
    })
    expect(Object.fromEntries(providers.map((provider) => [provider.id, provider.configured]))).toEqual({
      openai: true,
      anthropic: false,
      google: false,
      "openai-compatible": true,
    })
    expect(JSON.stringify(providers)).not.toContain("sk-test-secret-key")
    expect(JSON.stringify(providers)).not.toContain("11434")
  })

  it("answers 401 without a token", async () => {
    server = await startServer({ env: {} })
    const response = await request(`${server.url}/api/models`)
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: "unauthorized" })
  })
})
