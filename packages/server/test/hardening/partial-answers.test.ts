import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeModelServer, parseSse } from "@aide/testing"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type AideProcess, ensureBuilt, killAll, startServer } from "../support/process.js"
import { password, request } from "../support/server.js"

/**
 * Issue 9, items 14 and 22 against the real process: an answer streaming when the process is
 * killed (kill -9, or a second Ctrl-C) is kept up to its last checkpoint (every 2 s), settled;
 * and each run logs one structured line when it starts and one when it ends, without content.
 */

let model: FakeModelServer
const dataDirs: Array<string> = []

beforeAll(async () => {
  model = await FakeModelServer.start()
  await ensureBuilt()
}, 300_000)
afterEach(killAll)
afterAll(async () => {
  await model.close()
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

const start = (dataDir: string) => startServer({ AIDE_DATA_DIR: dataDir, OPENAI_COMPATIBLE_BASE_URL: model.url })

const prepare = async (server: { url: string }) => {
  const setup = await request(`${server.url}/api/auth/setup`, { body: { password } })
  expect(setup.status).toBe(201)
  const token = setup.body.token as string
  const operator = { provider: "openai-compatible", model: "fake-model" }
  expect(
    (await request(`${server.url}/api/config`, { method: "PATCH", token, body: { models: { operator } } })).status,
  ).toBe(200)
  return token
}

/** Reads the chat stream, resolving once `enough` says so (or the body ends); returns what it saw. */
const readUntil = async (response: Response, enough: (text: string) => boolean) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffered = ""
  let text = ""
  for (;;) {
    const next = await reader.read().catch(() => ({ done: true as const, value: undefined }))
    if (next.done) break
    buffered += decoder.decode(next.value, { stream: true })
    let end = buffered.indexOf("\n\n")
    while (end !== -1) {
      const data = parseSse(buffered.slice(0, end))[0]?.data
      buffered = buffered.slice(end + 2)
      end = buffered.indexOf("\n\n")
      if (data === undefined || data === "[DONE]") continue
      const chunk = JSON.parse(data)
      if (chunk.type === "text-delta") text += chunk.delta
    }
    if (enough(text)) break
  }
  return text
}

const words = Array.from({ length: 400 }, (_, n) => `word${n} `)

describe("partial answers over a crash", () => {
  it("kill -9 mid-stream keeps the answer shown so far (to its last checkpoint), never `streaming`", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "aide-partial-"))
    dataDirs.push(dataDir)
    let server: AideProcess & { url: string } = await start(dataDir)
    let token = await prepare(server)
    // ~20 words a second: the client has seen ~3.5 s of answer when the process dies.
    model.script({ text: words, chunkDelayMs: 50 })
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "Recite the words" }] }),
    })
    expect(response.status).toBe(200)
    const threadId = response.headers.get("x-thread-id")!
    const shown = await readUntil(response, (text) => text.includes("word70 "))
    server.child.kill("SIGKILL")
    expect((await server.exited).signal).toBe("SIGKILL")

    server = await start(dataDir)
    const login = await request(`${server.url}/api/auth/login`, { body: { password } })
    token = login.body.token as string
    const detail = await request(`${server.url}/api/threads/${threadId}`, { token })
    expect(detail.status).toBe(200)
    const messages = detail.body.messages as Array<any>
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"])
    const assistant = messages[1]
    const kept = (assistant.parts as Array<any>)
      .filter((part) => part.type === "text")
      .map((part) => part.text)
      .join("")
    // At least the first checkpoint (2 s ≈ 40 words) survived, and nothing the client was not shown.
    expect(kept).toContain("word30 ")
    expect(shown.startsWith(kept)).toBe(true)
    expect(assistant.metadata).toMatchObject({ threadId, partial: true })
    expect(JSON.stringify(assistant.parts)).not.toContain('"streaming"')

    // The thread goes on after the crash.
    model.script({ text: "Where was I?" })
    const next = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ threadId, parts: [{ type: "text", text: "Go on" }] }),
    })
    expect(next.status).toBe(200)
    expect(await readUntil(next, () => false)).toBe("Where was I?")
  }, 60_000)
})

describe("run logs", () => {
  it("a run logs one line when it starts and one when it ends, with duration and tokens, without content", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "aide-logs-"))
    dataDirs.push(dataDir)
    const server = await start(dataDir)
    const token = await prepare(server)
    model.script({ text: "A secret answer." })
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "A secret question" }] }),
    })
    const threadId = response.headers.get("x-thread-id")!
    await response.text()
    const started = await server.logged("chat run started")
    const finished = await server.logged("chat run finished")
    expect(started.annotations).toMatchObject({ threadId, runId: expect.any(String) })
    expect(finished.annotations).toMatchObject({
      threadId,
      runId: started.annotations.runId,
      durationMs: expect.any(Number),
      finishReason: "stop",
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
    })
    expect(server.stdout.join("\n")).not.toMatch(/secret/)
  }, 60_000)
})

describe("Ctrl-C", () => {
  it("one Ctrl-C arriving as a burst of SIGINTs (terminal + pnpm) shuts down gracefully: the stream finishes, exit 0", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "aide-sigint-"))
    dataDirs.push(dataDir)
    const server = await start(dataDir)
    const token = await prepare(server)
    model.script({ text: words.slice(0, 60), chunkDelayMs: 20 })
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "Recite the words" }] }),
    })
    const reading = readUntil(response, () => false)
    await server.logged("chat run started")
    // What `pnpm start` delivers for one keypress: the terminal's SIGINT and pnpm's forwarded copy.
    // (Signals sent in one tick merge into one; pnpm's copy comes a few milliseconds later.)
    for (const _ of [1, 2, 3]) {
      server.child.kill("SIGINT")
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(await reading).toBe(words.slice(0, 60).join(""))
    expect(await server.exited).toEqual({ code: 0, signal: null })
    expect(server.stdout.join("\n")).toMatch(/waiting for 1 chat run to finish; press Ctrl-C again to force/)
  }, 60_000)

  it("a second Ctrl-C a moment later forces the exit (status 130)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "aide-sigint-"))
    dataDirs.push(dataDir)
    const server = await start(dataDir)
    const token = await prepare(server)
    model.script({ text: words, chunkDelayMs: 50 })
    const response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "Recite the words" }] }),
    })
    void readUntil(response, () => false)
    await server.logged("chat run started")
    server.child.kill("SIGINT")
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    server.child.kill("SIGINT")
    expect(await server.exited).toEqual({ code: 130, signal: null })
    expect(server.stderr.join("\n")).toContain("forced exit")
  }, 60_000)
})
