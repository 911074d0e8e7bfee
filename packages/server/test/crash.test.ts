import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeModelServer, parseSse, type RecordedRequest } from "@aide/testing"
import { createTestDatabase } from "@aide/testing/effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type AideProcess, ensureBuilt, killAll, startServer } from "./support/process.js"
import { password, request, type StorageKind, storageKindsWherePostgresDiffers } from "./support/server.js"

/**
 * kill -9 against the real process: a client that saw `finish` never loses that message, and
 * sessions, threads and config survive the crash and a restart (issue 3).
 */

const runCounts: Record<StorageKind, number> = { sqlite: 10, postgres: 5 }
const operator = { provider: "openai-compatible", model: "fake-model" }

let model: FakeModelServer
const cleanups: Array<() => Promise<void> | void> = []

/** A data directory (and on PostgreSQL a database of its own) that outlives one process. */
const newStore = async (storage: StorageKind): Promise<Record<string, string>> => {
  const dataDir = mkdtempSync(join(tmpdir(), "aide-crash-"))
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  if (storage === "sqlite") return { AIDE_DATA_DIR: dataDir }
  const database = await createTestDatabase()
  cleanups.push(database.drop)
  return { AIDE_DATA_DIR: dataDir, DATABASE_URL: database.url }
}

const start = (env: Record<string, string>) => startServer({ ...env, OPENAI_COMPATIBLE_BASE_URL: model.url })

const killed = async (server: AideProcess) => {
  server.child.kill("SIGKILL")
  expect((await server.exited).signal).toBe("SIGKILL")
}

/** Title requests get the default turn; a chat turn only answers the message carrying `marker`. */
const isTitle = (r: RecordedRequest) => JSON.stringify(r.body.messages).includes("You name conversations")
const forMarker = (marker: string) => (r: RecordedRequest) =>
  !isTitle(r) && JSON.stringify(r.body.messages).includes(marker)

/** A fresh server, set up, with the fake model as operator; returns its first access token. */
const prepare = async (env: Record<string, string>) => {
  const server = await start(env)
  const setup = await request(`${server.url}/api/auth/setup`, { body: { password } })
  expect(setup.status).toBe(201)
  const token = setup.body.token as string
  const patched = await request(`${server.url}/api/config`, {
    method: "PATCH",
    token,
    body: { models: { operator } },
  })
  expect(patched.status).toBe(200)
  return { server, token }
}

/**
 * POST /api/chat, read as a stream; `onChunk` sees every JSON chunk the moment its frame is
 * complete (before the next read). Resolves with the chunks once the body ends or breaks.
 */
const streamChat = async (
  url: string,
  token: string,
  text: string,
  onChunk: (chunk: any) => void,
  threadId?: string,
) => {
  const response = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ parts: [{ type: "text", text }], ...(threadId === undefined ? {} : { threadId }) }),
  })
  expect(response.status).toBe(200)
  const chunks: Array<any> = []
  let done = false
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffered = ""
  try {
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      buffered += decoder.decode(next.value, { stream: true })
      let end = buffered.indexOf("\n\n")
      while (end !== -1) {
        const frame = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        end = buffered.indexOf("\n\n")
        const data = parseSse(frame)[0]?.data ?? ""
        if (data === "") continue
        if (data === "[DONE]") {
          done = true
          continue
        }
        const chunk = JSON.parse(data)
        chunks.push(chunk)
        onChunk(chunk)
      }
    }
  } catch {
    // the process died under the stream
  }
  return { threadId: response.headers.get("x-thread-id")!, chunks, done }
}

const textOfParts = (message: any) =>
  (message.parts as Array<any>)
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("")

const answerText = (chunks: ReadonlyArray<any>) =>
  chunks
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => chunk.delta)
    .join("")

/**
 * `runs` crashes in a row on one data directory (and database): each process is set up or
 * logged into, patches the config, chats, and is killed the moment its client sees `finish`;
 * the next process checks everything the killed one committed, then takes its turn. Returns
 * what did not survive, per run.
 */
const killAtFinishInARow = async (storage: StorageKind, runs: number): Promise<Array<string>> => {
  const env = await newStore(storage)
  let server = await start(env)
  const setup = await request(`${server.url}/api/auth/setup`, { body: { password } })
  expect(setup.status).toBe(201)
  let token = setup.body.token as string
  const threads: Array<string> = []
  const failures: Array<string> = []
  for (let run = 0; run < runs; run++) {
    // A config change per run: the value the next process must read back.
    const temperature = run / 10
    const patched = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token,
      body: { models: { operator: { ...operator, temperature } } },
    })
    expect(patched.status).toBe(200)
    const marker = `crash-${storage}-${run}`
    const answer = Array.from({ length: 12 }, (_, i) => `part ${i} of the answer to ${marker}; `)
    model.script({ text: answer, chunkDelayMs: 2, match: forMarker(marker) })

    const dying = server
    let killedAtFinish = false
    const seen = await streamChat(dying.url, token, `Hello ${marker}`, (chunk) => {
      if (chunk.type === "finish") {
        dying.child.kill("SIGKILL")
        killedAtFinish = true
      }
    })
    expect(killedAtFinish).toBe(true)
    expect(answerText(seen.chunks)).toBe(answer.join(""))
    expect((await dying.exited).signal).toBe("SIGKILL")
    threads.push(seen.threadId)

    server = await start(env)
    const lost: Array<string> = []
    const login = await request(`${server.url}/api/auth/login`, { body: { password } })
    if (login.status !== 200) lost.push(`login ${login.status}`)
    // The token of the killed process's session still opens protected routes: the secret and
    // the session survived.
    const sessions = await request(`${server.url}/api/auth/sessions`, { token })
    if (sessions.status !== 200) lost.push(`old token ${sessions.status}`)
    if (login.status === 200) token = login.body.token
    const detail = await request(`${server.url}/api/threads/${seen.threadId}`, { token })
    const messages: Array<any> = detail.status === 200 ? detail.body.messages : []
    const roles = JSON.stringify(messages.map((message) => message.role))
    if (roles !== JSON.stringify(["user", "assistant"])) lost.push(`messages ${roles}`)
    else if (textOfParts(messages[1]) !== answer.join("")) lost.push(`assistant text ${textOfParts(messages[1])}`)
    const listed = await request(`${server.url}/api/threads?perPage=false`, { token })
    const missing = threads.filter((id) => !JSON.stringify(listed.body).includes(id))
    if (missing.length > 0) lost.push(`threads missing from the list: ${missing.join(", ")}`)
    const config = await request(`${server.url}/api/config`, { token })
    const stored = config.body?.models?.operator
    if (
      stored?.provider !== operator.provider ||
      stored?.model !== operator.model ||
      stored?.temperature !== temperature
    ) {
      lost.push(`config ${JSON.stringify(stored)}`)
    }
    if (lost.length > 0) failures.push(`run ${run}: ${lost.join(", ")}`)
  }
  await killed(server)
  return failures
}

describe("kill -9 against the aide-server process", () => {
  beforeAll(async () => {
    await ensureBuilt()
    model = await FakeModelServer.start()
  }, 300_000)
  afterEach(killAll)
  afterAll(async () => {
    killAll()
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
    await model?.close()
  })

  describe.each(storageKindsWherePostgresDiffers)("on %s", (storage) => {
    it(`keeps every message whose finish the client saw (${runCounts[storage]} runs), with sessions and config`, async () => {
      const failures = await killAtFinishInARow(storage, runCounts[storage])
      console.info(
        `[crash] ${storage}: ${runCounts[storage] - failures.length}/${runCounts[storage]} survived kill -9 at finish`,
      )
      expect(failures).toEqual([])
    }, 120_000)

    it("after kill -9 mid-stream keeps the user's message, and the thread answers again", async () => {
      const env = await newStore(storage)
      const { server, token } = await prepare(env)
      const marker = `midstream-${storage}`
      const answer = Array.from({ length: 40 }, (_, i) => `word${i} `)
      model.script({ text: answer, chunkDelayMs: 25, match: forMarker(marker) })
      const seen = await streamChat(server.url, token, `Hello ${marker}`, (chunk) => {
        if (chunk.type === "text-delta") server.child.kill("SIGKILL")
      })
      expect(seen.chunks.some((chunk) => chunk.type === "finish")).toBe(false)
      expect(seen.done).toBe(false)
      expect((await server.exited).signal).toBe("SIGKILL")

      const restarted = await start(env)
      const before = await request(`${restarted.url}/api/threads/${seen.threadId}`, { token })
      expect(before.status).toBe(200)
      expect(before.body.messages.map((message: any) => message.role)).toEqual(["user"])
      expect(textOfParts(before.body.messages[0])).toBe(`Hello ${marker}`)
      // Nothing is left marked as streaming on the thread.
      const listed = await request(`${restarted.url}/api/threads`, { token })
      expect(listed.status).toBe(200)
      expect(JSON.stringify(listed.body)).toContain(seen.threadId)
      expect(listed.body.activeStreamIds ?? []).toEqual([])

      const again = `again-${storage}`
      model.script({ text: "Back after the crash.", match: forMarker(again) })
      const next = await streamChat(restarted.url, token, `Hello ${again}`, () => {}, seen.threadId)
      expect(next.threadId).toBe(seen.threadId)
      expect(next.done).toBe(true)
      expect(next.chunks.map((chunk) => chunk.type)).toContain("finish")
      expect(answerText(next.chunks)).toBe("Back after the crash.")
      const after = await request(`${restarted.url}/api/threads/${seen.threadId}`, { token })
      expect(after.body.messages.map((message: any) => message.role)).toEqual(["user", "user", "assistant"])
      expect(textOfParts(after.body.messages[2])).toBe("Back after the crash.")
      await killed(restarted)
    }, 60_000)
  })
})
