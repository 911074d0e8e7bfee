import { mcpStdioServerPath } from "@aide/testing/fixtures"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  type ChatTestServer,
  chat,
  chunksOf,
  eventually,
  startChatServer,
  textOfChunks,
  threadDetail,
} from "../support/chat.js"
import { request } from "../support/server.js"

/**
 * Issue 20, finding 3: a tool output nested 1,800 levels (an MCP server's structuredContent, a
 * plugin's result) was stored as is, and from then on every message of its thread answered
 * `500 Invalid prompt: The messages do not match the ModelMessage[] schema`. Outputs are bounded
 * before they are stored, and a part stored before that no longer blocks its thread.
 */
const depthOf = (value: unknown): number => {
  let depth = 0
  let current = value
  while (typeof current === "object" && current !== null) {
    depth++
    current = Array.isArray(current) ? current[0] : Object.values(current)[0]
  }
  return depth
}

describe("deep tool output over HTTP (a real stdio MCP server)", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
    const patched = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token: server.token,
      body: {
        mcpServers: { hostile: { command: process.execPath, args: [mcpStdioServerPath], requireApproval: false } },
      },
    })
    expect(patched.status).toBe(200)
    await eventually(
      async () => {
        const { body } = await request(`${server.url}/api/mcp-servers`, { token: server.token })
        return body.servers[0]?.tools.length > 0 ? true : undefined
      },
      { timeoutMs: 20_000 },
    )
  }, 30_000)
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  it("a 1,800-deep structuredContent is stored bounded, and the thread takes the next message", async () => {
    server.model.script(
      { toolCalls: [{ id: "d1", name: "hostile_deep", arguments: { depth: 1800 } }] },
      { text: "That was deep." },
    )
    const first = await chat(server, "Go deep")
    expect(first.status).toBe(200)
    const threadId = first.headers.get("x-thread-id")!
    const chunks = chunksOf(await first.text())
    expect(textOfChunks(chunks)).toBe("That was deep.")
    const output = chunks.find((chunk) => chunk.type === "tool-output-available")?.output
    expect(depthOf(output)).toBeLessThanOrEqual(40)
    expect(JSON.stringify(output)).toContain("nested deeper than")

    const stored = JSON.stringify((await threadDetail(server, threadId)).body.messages)
    expect(stored).toContain("nested deeper than")

    server.model.script({ text: "Still here." })
    const next = await chat(server, "And now?", threadId)
    expect(next.status).toBe(200)
    expect(textOfChunks(chunksOf(await next.text()))).toBe("Still here.")
  })

  it("a thread that already holds such a part (stored before the bound) answers again", async () => {
    // Seed the thread with one exchange, then make its tool part what an older server stored.
    server.model.script(
      { toolCalls: [{ id: "d2", name: "hostile_deep", arguments: { depth: 3 } }] },
      { text: "Shallow." },
    )
    const first = await chat(server, "Go a little deep")
    const threadId = first.headers.get("x-thread-id")!
    await first.text()
    let nested: unknown = "bottom"
    for (let level = 0; level < 1800; level++) nested = [nested]
    await server.run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ id: string; parts: string }>`
          SELECT id, parts FROM messages WHERE thread_id = ${threadId} AND role = 'assistant'`
        const row = rows[0]!
        const parts = JSON.parse(row.parts) as Array<Record<string, unknown>>
        const replaced = JSON.stringify(
          parts.map((part) => (part.toolCallId === "d2" ? { ...part, output: { nested } } : part)),
        )
        expect(replaced).toContain('"output":{"nested":[[[[')
        yield* sql`UPDATE messages SET parts = ${replaced} WHERE thread_id = ${threadId} AND id = ${row.id}`
      }),
    )

    server.model.script({ text: "Recovered." })
    const next = await chat(server, "Are you there?", threadId)
    expect(next.status).toBe(200)
    expect(textOfChunks(chunksOf(await next.text()))).toBe("Recovered.")
    // The model was told something was left out, not sent 1,800 levels.
    const sent = JSON.stringify(server.model.requests.at(-1)!.body.messages)
    expect(sent).toContain("nested deeper than")
    expect(sent).not.toContain("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[")
  })

  it("a stored part of a shape the model request refuses is left out with a note; the thread answers", async () => {
    server.model.script({ text: "First." })
    const first = await chat(server, "Hello")
    const threadId = first.headers.get("x-thread-id")!
    await first.text()
    // A text part whose text is not a string: stored by another writer, refused by the SDK's schema.
    await server.run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const broken = JSON.stringify([
          { type: "text", text: { not: "a string" } },
          { type: "text", text: "kept" },
        ])
        yield* sql`UPDATE messages SET parts = ${broken} WHERE thread_id = ${threadId} AND role = 'assistant'`
      }),
    )
    server.model.script({ text: "Answered." })
    const next = await chat(server, "Again", threadId)
    expect(next.status).toBe(200)
    expect(textOfChunks(chunksOf(await next.text()))).toBe("Answered.")
    const sent = JSON.stringify(server.model.requests.at(-1)!.body.messages)
    expect(sent).toContain("a stored part of this message was left out")
    expect(sent).toContain("kept")
  })
})
