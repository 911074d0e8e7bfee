import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { aideChatTransport, createAideClient } from "@aide/client"
import { PasswordHasher, TitleGenerator } from "@aide/kernel"
import { Server, ServerConfig } from "@aide/server"
import { FakeModelServer } from "@aide/testing"
import type { UIMessageChunk } from "ai"
import { Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { NodeChat } from "./nodeChat.js"
import { password, unlimited } from "./support.js"

/** The client on a serverless-style handler: no socket, `fetch` calls the handler directly. */
let model: FakeModelServer
let web: ReturnType<typeof Server.webHandler>
let dataDir: string
const client = () =>
  createAideClient({
    baseUrl: "http://aide.local",
    fetch: (input, init) => web.handler(new Request(input, init)),
  })

beforeAll(async () => {
  model = await FakeModelServer.start()
  dataDir = mkdtempSync(join(tmpdir(), "aide-client-web-"))
  web = Server.webHandler({
    port: 0,
    host: "127.0.0.1",
    dataDir,
    databaseUrl: Option.none(),
    jwtSecret: Option.none(),
    trustProxy: { _tag: "None" },
    maxBodyBytes: ServerConfig.defaultMaxBodyBytes,
    chatMaxBodyBytes: ServerConfig.defaultChatMaxBodyBytes,
    env: { OPENAI_COMPATIBLE_BASE_URL: model.url },
    kernel: {
      passwordHasher: PasswordHasher.layerTest,
      rateLimiter: unlimited,
      chat: { maxRetries: 0 },
      titles: TitleGenerator.layerFallback,
    },
  })
})
afterAll(async () => {
  await web.dispose()
  await model.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("the client against Server.webHandler", () => {
  it("sets up, refreshes, configures and chats", async () => {
    const aide = client()
    expect((await aide.auth.status()).auth.setup).toBe(false)
    await aide.auth.setup(password)
    await aide.auth.refresh()
    await aide.config.patch({ models: { operator: { provider: "openai-compatible", model: "fake-model" } } })
    model.script({ text: "Served without a socket" })
    const { threadId, chunks } = await aide.chat.send({ text: "Hi" })
    const all: Array<UIMessageChunk> = []
    for await (const chunk of chunks) all.push(chunk)
    expect(all.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("")).toBe("Served without a socket")
    expect((await aide.threads.list()).threads.map((thread) => thread.id)).toContain(threadId)
    expect((await aide.auth.sessions()).length).toBeGreaterThan(0)
  })

  it("useChat's transport works on it too", async () => {
    const aide = client()
    await aide.auth.login(password)
    model.script({ text: "Edge hello" })
    const chat = new NodeChat({ id: "web-chat", transport: aideChatTransport(aide) })
    await chat.sendMessage({ text: "Hello" })
    expect(chat.messages.at(-1)?.parts.some((part) => part.type === "text" && part.text === "Edge hello")).toBe(true)
  })
})
