import { setTimeout as delay } from "node:timers/promises"
import type { RecordedRequest } from "@aide/testing"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { activeStreamIds, type ChatTestServer, chat, chunksOf, resume, startChatServer } from "./support/chat.js"
import { request, storageKinds } from "./support/server.js"

const cronSecret = "cron-secret-of-at-least-some-length"
const isTitleRequest = (recorded: RecordedRequest) =>
  String(recorded.body.messages[0]?.content ?? "").startsWith("You name conversations")

/** Waits out a one-time task's due time: the server's clock is the wall clock here. */
const until = async (iso: string) => {
  const wait = new Date(iso).getTime() - Date.now() + 20
  if (wait > 0) await delay(wait)
}

describe.each(storageKinds)("Server.webHandler in serverless mode, behind Node's http adapter (%s)", (storage) => {
  let server: ChatTestServer
  const api = (
    path: string,
    init: { readonly method?: string; readonly body?: unknown; readonly token?: string } = {},
  ) => request(`${server.url}${path}`, { token: server.token, ...init })
  const runDue = (token: string | undefined) =>
    request(`${server.url}/api/schedule/run-due`, { method: "POST", ...(token === undefined ? {} : { token }) })

  beforeAll(async () => {
    server = await startChatServer({
      storage,
      mode: "serverless",
      modelTitles: true,
      cronSecret: Option.some(Redacted.make(cronSecret)),
    })
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  it("GET / says serverless: true", async () => {
    const response = await api("/")
    expect(response.body).toMatchObject({ serverless: true, auth: { setup: true, authenticated: true } })
  })

  it("a chat answers in its own request; nothing stays active and resume answers 204", async () => {
    server.model.script({ text: ["Served ", "without ", "a ", "process."] })
    const response = await chat(server, "Hello")
    expect(response.status).toBe(200)
    const threadId = response.headers.get("x-thread-id")!
    const text = await response.text()
    expect(chunksOf(text).some((chunk) => chunk.type === "text-delta" && chunk.delta === "process.")).toBe(true)
    expect(await activeStreamIds(server)).toEqual([])
    expect((await resume(server, threadId)).status).toBe(204)
    expect((await resume(server, threadId, 1)).status).toBe(204)
  })

  it("without waitUntil, the response ends once the thread's title is in", async () => {
    // The title comes late: the response must wait for it, not outlive it.
    server.model.script(
      { text: "Kyoto Autumn Trip", match: isTitleRequest, latencyMs: 500 },
      { text: "Start with Fushimi Inari." },
    )
    const response = await chat(server, "Plan a trip to Kyoto in autumn")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()
    expect((await api(`/api/threads/${threadId}`)).body.thread.title).toBe("Kyoto Autumn Trip")
  })

  describe("POST /api/schedule/run-due", () => {
    it("answers 401 without a token or with a wrong one", async () => {
      expect(await runDue(undefined)).toMatchObject({ status: 401, body: { error: "unauthorized" } })
      expect(await runDue("not-the-secret")).toMatchObject({ status: 401, body: { error: "unauthorized" } })
    })

    it("no task fires by itself; the trigger runs it, once, even when called twice at the same time", async () => {
      server.model.script({ text: "Remember to call Bob." })
      const runAt = new Date(Date.now() + 1_000).toISOString()
      const created = await api("/api/schedule", {
        method: "POST",
        body: { name: "Reminder", prompt: "Remind me to call Bob", runAt, destination: "Web Inbox" },
      })
      expect(created.status).toBe(201)
      await until(runAt)
      // Due, but no loop: nothing ran.
      expect(server.model.requests).toHaveLength(0)
      expect((await api("/api/schedule")).body.tasks).toHaveLength(1)

      const [first, second] = await Promise.all([runDue(cronSecret), runDue(cronSecret)])
      expect([first.status, second.status]).toEqual([200, 200])
      expect(first.body.fired + second.body.fired).toBe(1)
      expect(server.model.requests).toHaveLength(1)
      // The run finished inside the request: its message is in the inbox and the task is retired.
      const inbox = (await api("/api/inbox")).body.messages.filter((message: any) => message.subject === "Reminder")
      expect(inbox).toMatchObject([{ body: "Remember to call Bob.", status: "sent" }])
      expect((await api("/api/schedule")).body.tasks).toEqual([])
      expect((await runDue(cronSecret)).body).toEqual({ fired: 0 })
    })

    it("a task created after the trigger's instance started fires at its first due time", async () => {
      // The trigger's scheduler was built (and ran) before the task existed: a warm instance.
      expect((await runDue(cronSecret)).status).toBe(200)
      server.model.script({ text: "Tick." })
      // Every 2 seconds (6-field cron, seconds first): the first due time comes within 2 s of creation.
      const created = await api("/api/schedule", {
        method: "POST",
        body: { name: "Every two seconds", prompt: "Tick", cron: "*/2 * * * * *" },
      })
      expect(created.status).toBe(201)
      await until(created.body.nextRun)
      try {
        expect((await runDue(cronSecret)).body).toEqual({ fired: 1 })
        expect(server.model.requests).toHaveLength(1)
      } finally {
        await api(`/api/schedule/${created.body.id}`, { method: "DELETE" })
      }
    })

    it("an owner's access token works too", async () => {
      expect(await runDue(server.token)).toMatchObject({ status: 200, body: { fired: 0 } })
    })
  })
})

describe("serverless mode with the platform's waitUntil", () => {
  let server: ChatTestServer
  const handedOver: Array<Promise<unknown>> = []

  beforeAll(async () => {
    server = await startChatServer({
      mode: "serverless",
      modelTitles: true,
      waitUntil: (work) => handedOver.push(work),
    })
  })
  afterAll(() => server.close())

  it("the title's work is handed to waitUntil once the response is complete, and finishes there", async () => {
    server.model.script({ text: "Slow Title", match: isTitleRequest, latencyMs: 1_000 }, { text: "An answer." })
    const titleOf = async (threadId: string) =>
      (await request(`${server.url}/api/threads/${threadId}`, { token: server.token })).body.thread.title
    const response = await chat(server, "A question whose title takes a while")
    const threadId = response.headers.get("x-thread-id")!
    await response.text()
    // The response did not wait for the model's title: the first words are the title for now.
    expect(handedOver.length).toBeGreaterThan(0)
    expect(await titleOf(threadId)).toBe("A question whose title takes a while")
    await Promise.all(handedOver)
    expect(await titleOf(threadId)).toBe("Slow Title")
  })
})
