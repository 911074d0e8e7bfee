import { PostgresStorage } from "@aide/kernel/postgres"
import { FakeModelServer, type RecordedRequest } from "@aide/testing"
import { createTestDatabase } from "@aide/testing/effect"
import { approvalProbe } from "@aide/testing/fixtures"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { password, request, startServer, type TestServer } from "./support/server.js"

/**
 * A tool call paused on replica A is approved on replica B: B records the decision and runs the
 * rest of the turn (the tool executes there, once), on the same PostgreSQL database.
 */
describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("approval answered by the other replica", () => {
  let model: FakeModelServer
  let drop: () => Promise<void>
  const servers: Array<TestServer> = []
  const probes = [approvalProbe(), approvalProbe()]

  beforeAll(async () => {
    model = await FakeModelServer.start()
    const database = await createTestDatabase()
    drop = database.drop
    const url = Redacted.make(database.url)
    const start = (index: number) =>
      startServer({
        databaseUrl: Option.some(url),
        jwtSecret: Option.some(Redacted.make("replica-test-secret-0123456789abcdef0123456789")),
        env: { OPENAI_COMPATIBLE_BASE_URL: model.url },
        kernel: { storage: PostgresStorage.layer({ url }), tools: probes[index]!.tools },
      })
    servers.push(await start(0))
    const token = (await request(`${servers[0]!.url}/api/auth/setup`, { body: { password } })).body.token
    const operator = { provider: "openai-compatible", model: "fake-model" }
    await request(`${servers[0]!.url}/api/config`, { method: "PATCH", token, body: { models: { operator } } })
    // B starts once the config is set (it reads the document at start).
    servers.push(await start(1))
  })
  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => {})
    await model?.close()
    await drop?.()
  })

  it("pauses on A, resumes on B: the tool runs once, on B", async () => {
    const [a, b] = servers as [TestServer, TestServer]
    const token = (await request(`${a.url}/api/auth/login`, { body: { password } })).body.token as string
    // Title requests take the default turn: only the chat's requests take these.
    const chatTurn = (r: RecordedRequest) => !JSON.stringify(r.body.messages).includes("You name conversations")
    model.script(
      { match: chatTurn, toolCalls: [{ id: "call_1", name: "probe_delete_file", arguments: { path: "/tmp/x" } }] },
      { match: chatTurn, text: "Deleted it." },
    )
    const paused = await fetch(`${a.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "Delete /tmp/x" }] }),
    })
    expect(paused.status).toBe(200)
    const threadId = paused.headers.get("x-thread-id")!
    const runId = paused.headers.get("x-run-id")!
    expect(await paused.text()).toContain("tool-approval-request")

    const resumed = await fetch(`${b.url}/api/chat/approve`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ runId, threadId, toolCallId: "call_1", approved: true }),
    })
    expect(resumed.status).toBe(200)
    const text = await resumed.text()
    expect(text).toContain('"output":{"deleted":"/tmp/x"}')
    expect(text).toContain('"delta":"Deleted "')
    expect(probes[1]!.executions).toEqual([{ path: "/tmp/x" }])
    expect(probes[0]!.executions).toEqual([])
    // The decision is final everywhere: A refuses a second one.
    const again = await request(`${a.url}/api/chat/approve`, {
      token,
      body: { runId, threadId, toolCallId: "call_1", approved: false },
    })
    expect(again.status).toBe(409)
  })
})
