import { ModelRegistry, OpenAICompatible, Providers, TitleGenerator } from "@aide/kernel"
import { FakeModelServer } from "@aide/testing"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { chunksOf, textOfChunks } from "./support/chat.js"
import { request, type StartOptions, setup, startServer, type TestServer } from "./support/server.js"

/** Providers are open: `models.operator.provider` names any provider of the registry in use. */
describe("choosing a provider", () => {
  let fake: FakeModelServer
  let server: TestServer | undefined
  beforeEach(async () => {
    fake = await FakeModelServer.start({ models: ["fake-model", "fake-model-mini"] })
  })
  afterEach(async () => {
    await server?.close()
    await fake.close()
    server = undefined
  })

  const start = async (options: StartOptions) => {
    server = await startServer({ ...options, kernel: { titles: TitleGenerator.layerFallback, ...options.kernel } })
    const { token } = await setup(server)
    const patch = (body: unknown) => request(`${server!.url}/api/config`, { method: "PATCH", token, body })
    const chatText = async (text: string) => {
      const response = await fetch(`${server!.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ parts: [{ type: "text", text }] }),
      })
      expect(response.status).toBe(200)
      return textOfChunks(chunksOf(await response.text()))
    }
    const models = async () => (await request(`${server!.url}/api/models`, { token })).body.providers as Array<any>
    const config = async () => (await request(`${server!.url}/api/config`, { token })).body
    return { patch, chatText, models, config }
  }

  it("PATCH /api/config: an unknown provider is 400 naming the known ids; nothing changes", async () => {
    const { patch, config } = await start({ env: {} })
    const response = await patch({ models: { operator: { provider: "skynet", model: "t-800" } } })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({
      error: `models.operator.provider: unknown provider "skynet" (known: ${Providers.providerIds.join(", ")})`,
    })
    expect((await config()).models.operator).toEqual({ provider: "openai", model: "gpt-4.1-mini" })
  })

  it("PATCH /api/config: a preset is 200, and the chat streams from the server at its <ID>_BASE_URL", async () => {
    const { patch, chatText } = await start({ env: { GROQ_API_KEY: "gsk-test", GROQ_BASE_URL: fake.url } })
    const response = await patch({ models: { operator: { provider: "groq", model: "fake-model" } } })
    expect(response.status).toBe(200)
    expect(response.body.models.operator).toEqual({ provider: "groq", model: "fake-model" })
    fake.script({ text: "Hello through Groq." })
    expect(await chatText("Hi")).toBe("Hello through Groq.")
    expect(fake.requests.map((seen) => [seen.path, seen.headers.authorization, seen.body.model])).toEqual([
      ["/v1/chat/completions", "Bearer gsk-test", "fake-model"],
    ])
  })

  it("a provider the embedder adds through Kernel.layer({ modelRegistry }) is listed, selectable and answers", async () => {
    const bedrock = OpenAICompatible.preset({
      id: "bedrock",
      name: "Amazon Bedrock (through its OpenAI-compatible endpoint)",
      baseUrl: fake.url,
      apiKeyVar: "AWS_BEARER_TOKEN_BEDROCK",
      docUrl: "https://docs.aws.amazon.com/bedrock/latest/userguide/models-supported.html",
    })
    const env = { AWS_BEARER_TOKEN_BEDROCK: "bedrock-token" }
    const { patch, chatText, models } = await start({
      env,
      kernel: { modelRegistry: ModelRegistry.layer({ env, providers: [...Providers.catalogue, bedrock] }) },
    })
    expect((await models()).find((provider) => provider.id === "bedrock")).toEqual({
      id: "bedrock",
      name: "Amazon Bedrock (through its OpenAI-compatible endpoint)",
      models: ["fake-model", "fake-model-mini"],
      configured: true,
      docUrl: "https://docs.aws.amazon.com/bedrock/latest/userguide/models-supported.html",
      gateway: null,
      envVars: ["AWS_BEARER_TOKEN_BEDROCK"],
    })
    expect((await patch({ models: { operator: { provider: "bedrock", model: "fake-model" } } })).status).toBe(200)
    fake.script({ text: "Hello from Bedrock." })
    expect(await chatText("Hi")).toBe("Hello from Bedrock.")
    expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer bedrock-token")
  })
})
