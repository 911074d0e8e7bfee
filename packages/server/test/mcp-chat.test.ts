import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { mcpStdioServerPath } from "@aide/testing/fixtures"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, eventually, startChatServer, textOfChunks } from "./support/chat.js"
import { request } from "./support/server.js"

const fixture = mcpStdioServerPath

/** The entry of `@modelcontextprotocol/server-everything`, a real third-party server from npm. */
const everythingEntry = () => {
  const require = createRequire(fileURLToPath(new URL("../../kernel/package.json", import.meta.url)))
  const pkg = require.resolve("@modelcontextprotocol/server-everything/package.json")
  const { bin } = require(pkg) as { bin: string | Record<string, string> }
  return join(pkg, "..", typeof bin === "string" ? bin : Object.values(bin)[0]!)
}

const approve = (server: ChatTestServer, body: unknown) =>
  fetch(`${server.url}/api/chat/approve`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
    body: JSON.stringify(body),
  })

/** Chat → pause on an MCP tool → decision → the second stream's chunks. */
const callThroughApproval = async (server: ChatTestServer, approved: boolean) => {
  const first = await chat(server, "Use the tool")
  const chunks = chunksOf(await first.text())
  const start = chunks.find((chunk) => chunk.type === "start")
  expect(chunks.map((chunk) => chunk.type)).toContain("tool-approval-request")
  const threadId = first.headers.get("x-thread-id")!
  const second = await approve(server, { runId: start.messageMetadata.runId, threadId, approved })
  expect(second.status).toBe(200)
  return chunksOf(await second.text())
}

describe("MCP tools in chat, end to end", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
    const patched = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token: server.token,
      body: {
        mcpServers: {
          local: { command: process.execPath, args: [fixture] },
          auto: { command: process.execPath, args: [fixture], requireApproval: false },
          everything: { command: process.execPath, args: [everythingEntry(), "stdio"] },
        },
      },
    })
    expect(patched.status).toBe(200)
    await eventually(
      async () => {
        const { body } = await request(`${server.url}/api/mcp-servers`, { token: server.token })
        const ready = body.servers.filter((entry: { tools: Array<unknown> }) => entry.tools.length > 0)
        return ready.length === 3 ? true : undefined
      },
      { timeoutMs: 20_000 },
    )
  }, 30_000)
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  it("the model asks, the owner approves, the stdio server's tool runs and the model continues", async () => {
    server.model.script(
      { toolCalls: [{ id: "c1", name: "local_add", arguments: { a: 2, b: 3 } }] },
      { text: "The sum is 5." },
    )
    const chunks = await callThroughApproval(server, true)
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: "tool-output-available", toolCallId: "c1", output: { sum: 5 } }),
    )
    expect(textOfChunks(chunks)).toBe("The sum is 5.")
    expect(JSON.stringify(server.model.requests[1]!.body.messages)).toContain("sum")
  })

  it("denied: the MCP tool is not called and the model is told", async () => {
    server.model.script(
      { toolCalls: [{ id: "c2", name: "local_echo", arguments: { text: "secret" } }] },
      { text: "Okay, not echoing." },
    )
    const chunks = await callThroughApproval(server, false)
    expect(chunks).toContainEqual({ type: "tool-output-denied", toolCallId: "c2" })
    expect(chunks.some((chunk) => chunk.type === "tool-output-available")).toBe(false)
    expect(textOfChunks(chunks)).toBe("Okay, not echoing.")
  })

  it("a server with requireApproval false runs its tool within the first stream", async () => {
    server.model.script(
      { toolCalls: [{ id: "c3", name: "auto_echo", arguments: { text: "hi" } }] },
      { text: "Echoed." },
    )
    const response = await chat(server, "Echo hi")
    const chunks = chunksOf(await response.text())
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: "tool-output-available", toolCallId: "c3", output: "hi" }),
    )
    expect(chunks.some((chunk) => chunk.type === "tool-approval-request")).toBe(false)
  })

  it("an MCP tool error (isError) reaches the model as a tool error", async () => {
    server.model.script({ toolCalls: [{ id: "c4", name: "auto_fail", arguments: {} }] }, { text: "It failed." })
    const chunks = chunksOf(await (await chat(server, "Fail")).text())
    const error = chunks.find((chunk) => chunk.type === "tool-output-error")
    expect(error).toMatchObject({ toolCallId: "c4" })
    expect(error.errorText).toContain("the fixture failed on purpose")
    expect(textOfChunks(chunks)).toBe("It failed.")
  })

  it("a real third-party server (server-everything) runs through the approval flow", async () => {
    server.model.script(
      { toolCalls: [{ id: "c5", name: "everything_echo", arguments: { message: "from aide" } }] },
      { text: "It echoed." },
    )
    const chunks = await callThroughApproval(server, true)
    const output = chunks.find((chunk) => chunk.type === "tool-output-available")
    expect(JSON.stringify(output.output)).toContain("from aide")
  })
})
