import { mcpStdioServerPath } from "@aide/testing/fixtures"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Approvals from "../../../examples/api-script/src/approvals.js"
import * as ApiScript from "../../../examples/api-script/src/main.js"
import * as EmbedKernel from "../../../examples/embed-kernel/src/main.js"
import { type ChatTestServer, startChatServer } from "./support/chat.js"
import { password, request, startServer, type TestServer } from "./support/server.js"

describe("examples/embed-kernel", () => {
  it("accepts the host's JWT, refuses passwords, chats and schedules on a kernel with no data directory", async () => {
    const result = await EmbedKernel.run()
    // The reply comes from the example's own provider, and was read back from the memory threads.
    expect(result).toEqual({
      sessionId: "ada-laptop",
      passwordLogin: "AuthExternal",
      reply: "You said: Hello kernel",
      nextRun: true,
    })
  })
})

describe("examples/api-script", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it("sets up on first run, then logs in, refreshes and lists sessions", async () => {
    const first = await ApiScript.run(server.url, password)
    expect(first.sessions).toBe(1)
    const second = await ApiScript.run(server.url, password)
    expect(second.sessions).toBe(2)
    expect(second.current).not.toBe(first.current)
  })
})

describe("examples/api-script/src/approvals.ts", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())

  it("decides each approval request with its policy and returns the continued answer", async () => {
    const fixture = mcpStdioServerPath
    await request(`${server.url}/api/config`, {
      method: "PATCH",
      token: server.token,
      body: { mcpServers: { files: { command: process.execPath, args: [fixture] } } },
    })
    for (let attempt = 0; attempt < 200; attempt++) {
      const { body } = await request(`${server.url}/api/mcp-servers`, { token: server.token })
      if (body.servers[0]?.tools.length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    server.model.script(
      {
        toolCalls: [
          { id: "c1", name: "files_echo", arguments: { text: "hello" } },
          { id: "c2", name: "files_fail", arguments: {} },
        ],
      },
      { text: "Echoed; the other one was refused." },
    )
    const result = await Approvals.chatWithApprovals(
      server.url,
      server.token,
      "Go",
      (call) => call.toolName !== "files_fail",
    )
    expect(result.decisions).toEqual([
      { toolName: "files_echo", approved: true },
      { toolName: "files_fail", approved: false },
    ])
    expect(result.answer).toBe("Echoed; the other one was refused.")
  })
})
