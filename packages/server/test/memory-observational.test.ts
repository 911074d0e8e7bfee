import type { RecordedRequest } from "@aide/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, eventually, startChatServer } from "./support/chat.js"
import { request, storageKinds } from "./support/server.js"

const isObserver = (recorded: RecordedRequest) =>
  JSON.stringify(recorded.body.messages[0] ?? "").includes("memory observer")

const recordKeys = [
  "id",
  "scope",
  "generationCount",
  "observationTokenCount",
  "pendingMessageTokens",
  "totalTokensObserved",
  "isObserving",
  "isReflecting",
  "lastObservedAt",
  "updatedAt",
].sort()

describe.each(storageKinds)("observational memory over HTTP (%s)", (storage) => {
  let server: ChatTestServer
  const get = (path: string) => request(`${server.url}${path}`, { token: server.token })
  const patchMemory = (memory: unknown) =>
    request(`${server.url}/api/config`, { method: "PATCH", token: server.token, body: { memory } })

  beforeAll(async () => {
    server = await startChatServer({ storage })
  })
  afterAll(() => server.close())

  it("GET /api/memory/record answers SPEC's record and thresholds; observations are null before any", async () => {
    const { status, body } = await get("/api/memory/record")
    expect(status).toBe(200)
    expect(Object.keys(body.record).sort()).toEqual(recordKeys)
    expect(body.record).toMatchObject({
      scope: "resource",
      generationCount: 0,
      observationTokenCount: 0,
      pendingMessageTokens: 0,
      totalTokensObserved: 0,
      isObserving: false,
      isReflecting: false,
      lastObservedAt: null,
    })
    expect(Date.parse(body.record.updatedAt)).not.toBeNaN()
    expect(body.thresholds).toEqual({ scope: "resource", messageTokens: 30_000, observationTokens: 40_000 })
    expect(await get("/api/memory/observations")).toMatchObject({ status: 200, body: { observations: null } })
  })

  it("a chat past messageTokens is observed in the background: counters, observations, proximity", async () => {
    expect((await patchMemory({ observationalMemory: { messageTokens: 50 } })).status).toBe(200)
    server.model.script(
      { text: "Noted: you like green tea." },
      { text: "Date: 2026-11-24\n- 10:00 🔴 The owner likes green tea.", match: isObserver },
    )
    const answer = await chat(server, `I like green tea. ${"I really do. ".repeat(40)}`)
    expect(answer.status).toBe(200)
    await answer.text()
    const observations = await eventually(async () => {
      const { body } = await get("/api/memory/observations")
      return body.observations ?? undefined
    })
    expect(observations).toContain("🔴 The owner likes green tea.")
    const { body } = await get("/api/memory/record")
    expect(body.record.pendingMessageTokens).toBe(0)
    expect(body.record.totalTokensObserved).toBeGreaterThan(50)
    expect(body.record.observationTokenCount).toBeGreaterThan(0)
    expect(Date.parse(body.record.lastObservedAt)).not.toBeNaN()
    // SPEC "Monitoring": observer and reflector proximity are computable.
    expect(body.record.pendingMessageTokens / body.thresholds.messageTokens).toBe(0)
    expect(body.record.observationTokenCount / body.thresholds.observationTokens).toBeGreaterThan(0)
  })

  it("every memory config field is accepted, echoed and validated with a 400 naming it", async () => {
    const accepted = await patchMemory({
      enabled: true,
      model: "openai-compatible/fake-model",
      workingMemory: { enabled: true },
      observationalMemory: {
        enabled: true,
        scope: "thread",
        messageTokens: 50,
        observationTokens: 60,
        dailyTokenBudget: 5_000,
      },
      semanticRecall: { enabled: false, topK: 3, messageRange: 0 },
    })
    expect(accepted.status).toBe(200)
    expect(accepted.body.memory).toMatchObject({
      model: "openai-compatible/fake-model",
      observationalMemory: { scope: "thread", messageTokens: 50, observationTokens: 60, dailyTokenBudget: 5_000 },
      semanticRecall: { topK: 3, messageRange: 0 },
    })
    expect((await patchMemory({ model: { provider: "openai-compatible", model: "fake-model" } })).status).toBe(200)
    const thresholds = (await get("/api/memory/record")).body.thresholds
    expect(thresholds).toEqual({ scope: "thread", messageTokens: 50, observationTokens: 60 })
    for (const [memory, problem] of [
      [{ observationalMemory: { messageTokens: 49 } }, "memory.observationalMemory.messageTokens"],
      [{ observationalMemory: { observationTokens: 1.5 } }, "memory.observationalMemory.observationTokens"],
      [{ observationalMemory: { scope: "global" } }, "memory.observationalMemory.scope"],
      [{ observationalMemory: { dailyTokenBudget: -1 } }, "memory.observationalMemory.dailyTokenBudget"],
      [{ semanticRecall: { topK: 0 } }, "memory.semanticRecall.topK"],
      [{ model: "no-slash" }, "memory.model"],
      [{ model: "nobody/model-x" }, "memory.model: unknown provider"],
      [{ semanticRecall: { embedder: "nobody/embed-x" } }, "memory.semanticRecall.embedder: unknown provider"],
      [{ enabled: "yes" }, "memory.enabled"],
      [{ extra: true }, "memory.extra"],
    ] as const) {
      const refused = await patchMemory(memory)
      expect(refused.status, JSON.stringify(memory)).toBe(400)
      expect(refused.body.error).toContain(problem)
    }
    expect((await patchMemory({ model: null, observationalMemory: { scope: "resource" } })).status).toBe(200)
  })

  it("thread scope: ?threadId= picks a thread's record; a blank threadId is a 400", async () => {
    expect((await patchMemory({ observationalMemory: { scope: "thread", messageTokens: 30_000 } })).status).toBe(200)
    const threadId = crypto.randomUUID()
    const answer = await chat(server, "Hello in thread scope", threadId)
    expect(answer.status).toBe(200)
    await answer.text()
    const scoped = await eventually(async () => {
      const { body } = await get(`/api/memory/record?threadId=${threadId}`)
      return body.record.pendingMessageTokens > 0 ? body.record : undefined
    })
    expect(scoped.scope).toBe("thread")
    // Without threadId: the most recently updated thread's record.
    expect((await get("/api/memory/record")).body.record.id).toBe(scoped.id)
    expect((await get("/api/memory/record?threadId=")).status).toBe(400)
    expect((await patchMemory({ observationalMemory: { scope: "resource" } })).status).toBe(200)
  })

  it("memory off: record and thresholds are null, observations null (never an empty string)", async () => {
    expect((await patchMemory({ enabled: false })).status).toBe(200)
    expect((await get("/api/memory/record")).body).toEqual({ record: null, thresholds: null })
    expect((await get("/api/memory/observations")).body).toEqual({ observations: null })
    expect((await patchMemory({ enabled: true, observationalMemory: { enabled: false } })).status).toBe(200)
    expect((await get("/api/memory/record")).body).toEqual({ record: null, thresholds: null })
    expect((await patchMemory({ observationalMemory: { enabled: true } })).status).toBe(200)
    expect((await get("/api/memory/record")).body.record).not.toBeNull()
  })

  it("every memory route needs a valid token", async () => {
    for (const path of ["/api/memory/record", "/api/memory/observations", "/api/memory/working"]) {
      expect((await request(`${server.url}${path}`)).status).toBe(401)
    }
  })
})
