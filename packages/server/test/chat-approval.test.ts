import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ToolRegistry } from "@aide/kernel"
import type { RecordedRequest } from "@aide/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  type ChatTestServer,
  chat,
  chunksOf,
  readWithAiSdk,
  startChatServer,
  textOfChunks,
  textOfParts,
  threadDetail,
} from "./support/chat.js"
import { storageKindsWherePostgresDiffers } from "./support/server.js"

/** A tool the model may call, whose executions the test counts; its approval policy is switchable. */
const probe = () => {
  const executions: Array<unknown> = []
  const policy = { requireApproval: true }
  const tools = ToolRegistry.source({
    id: "probe",
    kind: "plugin",
    tools: Effect.sync(() => [
      {
        name: "delete_file",
        description: "Deletes a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        requireApproval: policy.requireApproval,
        execute: (input: unknown) =>
          Effect.sync(() => {
            executions.push(input)
            return { deleted: (input as { path: string }).path }
          }),
      },
      {
        name: "broken",
        description: "Always fails",
        inputSchema: { type: "object", properties: {} },
        requireApproval: false,
        execute: () => Effect.fail(new ToolRegistry.ToolExecutionError({ message: "disk on fire" })),
      },
    ]),
  })
  return { executions, policy, tools }
}

const approve = (server: ChatTestServer, body: unknown) =>
  fetch(`${server.url}/api/chat/approve`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
    body: JSON.stringify(body),
  })

const callDelete = (path: string, id = "call_1") => ({
  toolCalls: [{ id, name: "probe_delete_file", arguments: { path } }],
})

/** The messages a model request carried (to see what the model was told). */
const toolMessagesOf = (recorded: RecordedRequest) =>
  (recorded.body.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>).filter(
    (message) => message.role === "tool",
  )

/** Sends `text`, expecting the model to pause on tool calls; returns the ids the client needs. */
const pauseOn = async (server: ChatTestServer, text: string, threadId?: string) => {
  const response = await chat(server, text, threadId)
  expect(response.status).toBe(200)
  const chunks = chunksOf(await response.text())
  const start = chunks.find((chunk) => chunk.type === "start")
  return {
    threadId: response.headers.get("x-thread-id")!,
    runId: start.messageMetadata.runId as string,
    headerRunId: response.headers.get("x-run-id"),
    messageId: start.messageId as string,
    chunks,
  }
}

describe.each(storageKindsWherePostgresDiffers)("tool approval over HTTP (%s)", (storage) => {
  let server: ChatTestServer
  let tool: ReturnType<typeof probe>
  beforeAll(async () => {
    tool = probe()
    server = await startChatServer({ storage, kernel: { tools: tool.tools } })
  })
  afterAll(() => server.close())
  beforeEach(() => {
    server.model.reset()
    tool.executions.length = 0
    tool.policy.requireApproval = true
  })

  it("pauses the stream in approval-requested and shows the same state after a reload", async () => {
    server.model.script(callDelete("/tmp/a"))
    const paused = await pauseOn(server, "Delete /tmp/a")
    const request = paused.chunks.find((chunk) => chunk.type === "tool-approval-request")
    expect(request).toMatchObject({ toolCallId: "call_1" })
    expect(paused.chunks.at(-1)).toMatchObject({ type: "finish" })
    expect(paused.headerRunId).toBe(paused.runId)
    expect(tool.executions).toEqual([])

    const detail = await threadDetail(server, paused.threadId)
    const assistant = detail.body.messages.at(-1)
    expect(assistant.metadata).toMatchObject({ runId: paused.runId, threadId: paused.threadId })
    expect(assistant.parts).toContainEqual(
      expect.objectContaining({
        type: "dynamic-tool",
        toolName: "probe_delete_file",
        toolCallId: "call_1",
        state: "approval-requested",
        input: { path: "/tmp/a" },
        approval: { id: request.approvalId },
      }),
    )
  })

  it("approved: the tool runs once, the model continues the same message in a new stream", async () => {
    server.model.script(callDelete("/tmp/b"), { text: "Deleted it." })
    const paused = await pauseOn(server, "Delete /tmp/b")
    const response = await approve(server, {
      runId: paused.runId,
      threadId: paused.threadId,
      toolCallId: "call_1",
      approved: true,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(response.headers.get("x-thread-id")).toBe(paused.threadId)
    const chunks = chunksOf(await response.text())
    expect(chunks[0]).toMatchObject({ type: "start", messageId: paused.messageId })
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: "tool-output-available", toolCallId: "call_1", output: { deleted: "/tmp/b" } }),
    )
    expect(textOfChunks(chunks)).toBe("Deleted it.")
    expect(tool.executions).toEqual([{ path: "/tmp/b" }])
    // The model saw the tool's result.
    expect(JSON.stringify(toolMessagesOf(server.model.requests[1]!))).toContain("/tmp/b")

    const again = await approve(server, { runId: paused.runId, threadId: paused.threadId, approved: true })
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({ error: "Run is not waiting for approval" })
    expect(tool.executions).toHaveLength(1)

    const detail = await threadDetail(server, paused.threadId)
    const messages = detail.body.messages
    expect(messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant"])
    const part = messages[1].parts.find((candidate: { type: string }) => candidate.type === "dynamic-tool")
    expect(part).toMatchObject({ state: "output-available", output: { deleted: "/tmp/b" } })
    expect(textOfParts(messages[1].parts)).toBe("Deleted it.")
  })

  it("denied: the tool never runs and the model is told", async () => {
    server.model.script(callDelete("/tmp/c"), { text: "Understood, I left it." })
    const paused = await pauseOn(server, "Delete /tmp/c")
    const response = await approve(server, { runId: paused.runId, threadId: paused.threadId, approved: false })
    expect(response.status).toBe(200)
    const chunks = chunksOf(await response.text())
    expect(chunks).toContainEqual({ type: "tool-output-denied", toolCallId: "call_1" })
    expect(textOfChunks(chunks)).toBe("Understood, I left it.")
    expect(tool.executions).toEqual([])
    expect(toolMessagesOf(server.model.requests[1]!)).toHaveLength(1)
    const detail = await threadDetail(server, paused.threadId)
    const part = detail.body.messages[1].parts.find((candidate: { type: string }) => candidate.type === "dynamic-tool")
    expect(part).toMatchObject({ state: "output-denied", approval: { approved: false } })
  })

  it("a client using the AI SDK reads the resumed stream into one assistant message", async () => {
    server.model.script(callDelete("/tmp/sdk"), { text: "Done." })
    const paused = await pauseOn(server, "Delete /tmp/sdk")
    // As `useChat` does, the client continues the assistant message it already holds.
    const held = (await threadDetail(server, paused.threadId)).body.messages[1]
    const message = await readWithAiSdk(
      await approve(server, { runId: paused.runId, threadId: paused.threadId, approved: true }),
      held,
    )
    expect(message!.id).toBe(paused.messageId)
    expect(textOfParts(message!.parts as Array<{ type: string; text?: string }>)).toBe("Done.")
    expect(message!.parts).toContainEqual(expect.objectContaining({ type: "dynamic-tool", state: "output-available" }))
  })

  it("an approval id sent as runId (as the reference client does) decides that call of its run", async () => {
    server.model.script(
      {
        toolCalls: [
          { id: "call_a", name: "probe_delete_file", arguments: { path: "/x" } },
          { id: "call_b", name: "probe_delete_file", arguments: { path: "/y" } },
        ],
      },
      { text: "Deleted /x only." },
    )
    const paused = await pauseOn(server, "Delete /x and /y")
    const approvalOf = (toolCallId: string) =>
      paused.chunks.find((chunk) => chunk.type === "tool-approval-request" && chunk.toolCallId === toolCallId)
        .approvalId as string

    const first = await approve(server, { runId: approvalOf("call_a"), threadId: paused.threadId, approved: true })
    expect(first.status).toBe(200)
    expect(first.headers.get("x-run-id")).toBe(paused.runId)
    // Only the named call was decided: the run still waits for the other one.
    expect(chunksOf(await first.text())[0]).toMatchObject({ messageMetadata: { awaitingApproval: ["call_b"] } })

    const second = await approve(server, { runId: approvalOf("call_b"), threadId: paused.threadId, approved: false })
    expect(second.status).toBe(200)
    const chunks = chunksOf(await second.text())
    expect(chunks).toContainEqual(expect.objectContaining({ type: "tool-output-available", toolCallId: "call_a" }))
    expect(chunks).toContainEqual({ type: "tool-output-denied", toolCallId: "call_b" })
    expect(tool.executions).toEqual([{ path: "/x" }])

    // An approval id of another thread is not found here.
    const elsewhere = await approve(server, { runId: approvalOf("call_a"), threadId: "other-thread", approved: true })
    expect(elsewhere.status).toBe(404)
  })

  it("several calls in one step are each decided; the run resumes once all are", async () => {
    server.model.script(
      {
        toolCalls: [
          { id: "call_a", name: "probe_delete_file", arguments: { path: "/a" } },
          { id: "call_b", name: "probe_delete_file", arguments: { path: "/b" } },
        ],
      },
      { text: "One deleted, one kept." },
    )
    const paused = await pauseOn(server, "Delete /a and /b")
    expect(paused.chunks.filter((chunk) => chunk.type === "tool-approval-request")).toHaveLength(2)

    const first = await approve(server, {
      runId: paused.runId,
      threadId: paused.threadId,
      toolCallId: "call_a",
      approved: true,
    })
    expect(first.status).toBe(200)
    const acknowledged = chunksOf(await first.text())
    expect(acknowledged[0]).toMatchObject({
      type: "start",
      messageId: paused.messageId,
      messageMetadata: { runId: paused.runId, awaitingApproval: ["call_b"] },
    })
    expect(tool.executions).toEqual([])
    const between = await threadDetail(server, paused.threadId)
    const states = between.body.messages[1].parts
      .filter((part: { type: string }) => part.type === "dynamic-tool")
      .map((part: { state: string }) => part.state)
    expect(states).toEqual(["approval-responded", "approval-requested"])

    const conflicting = await approve(server, {
      runId: paused.runId,
      threadId: paused.threadId,
      toolCallId: "call_a",
      approved: false,
    })
    expect(conflicting.status).toBe(409)
    expect(await conflicting.json()).toEqual({ error: "Tool call already decided" })

    const second = await approve(server, {
      runId: paused.runId,
      threadId: paused.threadId,
      toolCallId: "call_b",
      approved: false,
    })
    const chunks = chunksOf(await second.text())
    expect(chunks).toContainEqual(expect.objectContaining({ type: "tool-output-available", toolCallId: "call_a" }))
    expect(chunks).toContainEqual({ type: "tool-output-denied", toolCallId: "call_b" })
    expect(tool.executions).toEqual([{ path: "/a" }])
  })

  it("the policy in force at the pause applies: switching approval off meanwhile neither runs a denial nor drops an approval", async () => {
    server.model.script(callDelete("/tmp/p1"), { text: "Kept." }, callDelete("/tmp/p2"), { text: "Deleted." })
    const denied = await pauseOn(server, "Delete /tmp/p1")
    tool.policy.requireApproval = false
    await (await approve(server, { runId: denied.runId, threadId: denied.threadId, approved: false })).text()
    expect(tool.executions).toEqual([])

    tool.policy.requireApproval = true
    const approved = await pauseOn(server, "Delete /tmp/p2")
    tool.policy.requireApproval = false
    const chunks = chunksOf(
      await (await approve(server, { runId: approved.runId, threadId: approved.threadId, approved: true })).text(),
    )
    expect(chunks).toContainEqual(expect.objectContaining({ type: "tool-output-available", toolCallId: "call_1" }))
    expect(tool.executions).toEqual([{ path: "/tmp/p2" }])
  })

  it("a tool error reaches the model as a tool error, not a 500", async () => {
    server.model.script({ toolCalls: [{ id: "call_x", name: "probe_broken", arguments: {} }] }, { text: "It failed." })
    const response = await chat(server, "Try the broken tool")
    expect(response.status).toBe(200)
    const chunks = chunksOf(await response.text())
    expect(chunks).toContainEqual({
      type: "tool-output-error",
      toolCallId: "call_x",
      errorText: "disk on fire",
      dynamic: true,
    })
    expect(textOfChunks(chunks)).toBe("It failed.")
    expect(JSON.stringify(toolMessagesOf(server.model.requests[1]!))).toContain("disk on fire")
  })

  it("a new message instead of a decision denies the pending call and ends the run", async () => {
    server.model.script(callDelete("/tmp/n"), { text: "Sure, something else." })
    const paused = await pauseOn(server, "Delete /tmp/n")
    const next = await chat(server, "Never mind", paused.threadId)
    expect(next.status).toBe(200)
    expect(textOfChunks(chunksOf(await next.text()))).toBe("Sure, something else.")
    const late = await approve(server, { runId: paused.runId, threadId: paused.threadId, approved: true })
    expect(late.status).toBe(409)
    expect(tool.executions).toEqual([])
    const detail = await threadDetail(server, paused.threadId)
    const part = detail.body.messages[1].parts.find((candidate: { type: string }) => candidate.type === "dynamic-tool")
    expect(part).toMatchObject({ state: "output-denied", approval: { approved: false } })
  })

  describe("errors", () => {
    it("400 when runId or threadId is missing", async () => {
      for (const body of [
        {},
        { runId: "r" },
        { threadId: "t" },
        { runId: 1, threadId: "t" },
        { runId: "", threadId: "t" },
      ]) {
        const response = await approve(server, { ...body, approved: true })
        expect(response.status).toBe(400)
        expect(await response.json()).toEqual({ error: "runId and threadId are required" })
      }
    })

    it("400 runId and threadId are required for an empty, non-JSON-object or null body", async () => {
      for (const body of ["", "[]", "null", '"text"']) {
        const response = await fetch(`${server.url}/api/chat/approve`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
          body,
        })
        expect(response.status).toBe(400)
        expect(await response.json()).toEqual({ error: "runId and threadId are required" })
      }
    })

    it("400 when approved is missing or not a boolean", async () => {
      server.model.script(callDelete("/tmp/e"))
      const paused = await pauseOn(server, "Delete /tmp/e")
      for (const approved of [undefined, "yes"]) {
        const response = await approve(server, { runId: paused.runId, threadId: paused.threadId, approved })
        expect(response.status).toBe(400)
        expect(await response.json()).toEqual({ error: "approved must be true or false" })
      }
    })

    it("404 for an unknown run, a run of another thread, or an unknown tool call", async () => {
      server.model.script(callDelete("/tmp/f"))
      const paused = await pauseOn(server, "Delete /tmp/f")
      const unknown = await approve(server, { runId: "nope", threadId: paused.threadId, approved: true })
      expect(unknown.status).toBe(404)
      expect(await unknown.json()).toEqual({ error: "Run not found" })
      const elsewhere = await approve(server, { runId: paused.runId, threadId: "another-thread", approved: true })
      expect(elsewhere.status).toBe(404)
      const call = await approve(server, {
        runId: paused.runId,
        threadId: paused.threadId,
        toolCallId: "x",
        approved: true,
      })
      expect(call.status).toBe(404)
      expect(await call.json()).toEqual({ error: "Tool call not found in run" })
      expect(tool.executions).toEqual([])
    })

    it("401 without a token", async () => {
      const response = await fetch(`${server.url}/api/chat/approve`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ runId: "r", threadId: "t", approved: true }),
      })
      expect(response.status).toBe(401)
    })
  })
})

describe("tool approval across a restart", () => {
  it("a run paused before the server stopped is approved after it starts again", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "aide-approval-"))
    try {
      const tool = probe()
      const first = await startChatServer({ dataDir, kernel: { tools: tool.tools } })
      first.model.script(callDelete("/tmp/r"))
      const paused = await pauseOn(first, "Delete /tmp/r")
      await first.close()

      const second = await startChatServer({ dataDir, kernel: { tools: tool.tools } })
      try {
        second.model.script({ text: "Deleted after the restart." })
        const response = await approve(second, { runId: paused.runId, threadId: paused.threadId, approved: true })
        expect(response.status).toBe(200)
        expect(textOfChunks(chunksOf(await response.text()))).toBe("Deleted after the restart.")
        expect(tool.executions).toEqual([{ path: "/tmp/r" }])
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
