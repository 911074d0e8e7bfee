import { mcpStdioServerPath } from "@aide/testing/fixtures"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ChatTestServer, eventually, startChatServer } from "./support/chat.js"
import { request, storageKindsWherePostgresDiffers } from "./support/server.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString()

describe.each(storageKindsWherePostgresDiffers)("schedule API (%s)", (storage) => {
  let server: ChatTestServer

  const api = (
    path: string,
    init: { readonly method?: string; readonly body?: unknown; readonly token?: string } = {},
  ) => request(`${server.url}${path}`, { token: server.token, ...init })

  const create = (body: Record<string, unknown>) => api("/api/schedule", { method: "POST", body })

  beforeAll(async () => {
    server = await startChatServer({ storage })
  })
  afterAll(() => server.close())
  beforeEach(async () => {
    const { body } = await api("/api/schedule")
    for (const task of body.tasks) await api(`/api/schedule/${task.id}`, { method: "DELETE" })
    await api("/api/config", { method: "PATCH", body: { schedule: { enabled: true, heartbeat: null } } })
    server.model.reset()
  })

  describe("GET /api/schedule", () => {
    it("answers the master flag and no tasks on a fresh install", async () => {
      const response = await api("/api/schedule")
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ enabled: true, tasks: [] })
    })

    it("answers each task as GET /api/schedule/:id does, field for field and in the same order", async () => {
      const runAt = inAnHour()
      const ids = [
        (await create({ name: "Plain", prompt: "p", cron: "0 8 * * *" })).body.id,
        (
          await create({
            name: "Every field",
            prompt: "p",
            cron: "*/5 * * * *",
            timezone: "Europe/Berlin",
            maxRuns: 3,
            destination: "Web Inbox",
          })
        ).body.id,
        (await create({ name: "Once, off", prompt: "p", runAt, enabled: false })).body.id,
      ]
      const one = async (id: string) => JSON.stringify((await api(`/api/schedule/${id}`)).body)
      const list = await api("/api/schedule")
      expect(list.status).toBe(200)
      expect(list.body.enabled).toBe(true)
      expect(list.body.tasks.map((task: unknown) => JSON.stringify(task))).toEqual([
        await one(ids[0]),
        await one(ids[1]),
        await one(ids[2]),
      ])
    })
  })

  describe("POST /api/schedule", () => {
    it("creates a recurring task: 201 with id, defaults, nextRun and isRunning", async () => {
      const response = await create({
        name: "Digest",
        prompt: "Summarise my inbox",
        cron: "0 8 * * *",
        timezone: "Europe/Berlin",
      })
      expect(response.status).toBe(201)
      expect(response.body).toEqual({
        id: expect.stringMatching(uuid),
        name: "Digest",
        prompt: "Summarise my inbox",
        cron: "0 8 * * *",
        timezone: "Europe/Berlin",
        enabled: true,
        nextRun: expect.stringMatching(isoTimestamp),
        isRunning: false,
      })
      expect(new Date(response.body.nextRun).getTime()).toBeGreaterThan(Date.now())
      const list = await api("/api/schedule")
      expect(list.body.tasks).toEqual([response.body])
      // The same data is in the config document.
      const config = await api("/api/config")
      expect(config.body.schedule.tasks).toEqual([
        {
          id: response.body.id,
          name: "Digest",
          prompt: "Summarise my inbox",
          cron: "0 8 * * *",
          timezone: "Europe/Berlin",
        },
      ])
    })

    it("creates a one-time task with maxRuns refused", async () => {
      const runAt = inAnHour()
      const response = await create({ name: "Once", prompt: "p", runAt, destination: "Web Inbox", enabled: false })
      expect(response.status).toBe(201)
      expect(response.body).toMatchObject({ runAt, destination: "Web Inbox", enabled: false, nextRun: null })
      const refused = await create({ name: "Once", prompt: "p", runAt, maxRuns: 3 })
      expect(refused).toMatchObject({
        status: 400,
        body: { error: "task: maxRuns applies to recurring (cron) tasks only" },
      })
    })

    it.each([
      [{ name: "a", prompt: "b" }, /^cron or runAt is required/],
      [{ name: "a", prompt: "b", cron: "* * * * *", runAt: "2099-01-01T00:00:00Z" }, /not both/],
      [{ name: "a", prompt: "b", cron: "every morning" }, /^cron: invalid cron expression "every morning"/],
      [{ name: "a", prompt: "b", runAt: "2020-01-01T00:00:00Z" }, /^runAt must be in the future/],
      [{ name: "a", prompt: "b", runAt: "next week" }, /^runAt: invalid timestamp "next week"/],
      [
        { name: "a", prompt: "b", cron: "* * * * *", timezone: "Moon/Base" },
        /^timezone: unknown time zone "Moon\/Base"/,
      ],
      [{ name: "a", prompt: "b", cron: "* * * * *", maxRuns: 1.5 }, /^maxRuns: must be a positive integer/],
      [
        { name: "a", prompt: "b", cron: "* * * * *", destination: "fax" },
        /^unknown destination "fax" \(available: Web Inbox, browser\)/,
      ],
      [{ prompt: "b", cron: "* * * * *" }, /^name: is required/],
      [{ name: "a", prompt: "", cron: "* * * * *" }, /^prompt: must be a non-empty string/],
      [{ name: "a", prompt: "b", cron: "* * * * *", colour: "red" }, /^unknown field colour/],
    ])("400 with a clear message for %j", async (body, message) => {
      const response = await create(body)
      expect(response.status).toBe(400)
      expect(response.body.error).toMatch(message)
      expect(Object.keys(response.body)).toEqual(["error"])
    })

    it("400 for a body that is not an object", async () => {
      const response = await api("/api/schedule", { method: "POST", body: [1, 2] })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: expect.any(String) })
    })
  })

  describe("GET /api/schedule/:id", () => {
    it("answers the task, or 404 Task not found", async () => {
      const { body: task } = await create({ name: "T", prompt: "p", cron: "*/5 * * * *" })
      expect(await api(`/api/schedule/${task.id}`)).toMatchObject({ status: 200, body: task })
      expect(await api("/api/schedule/00000000-0000-4000-8000-000000000000")).toMatchObject({
        status: 404,
        body: { error: "Task not found" },
      })
    })
  })

  describe("PATCH /api/schedule/:id", () => {
    it("null clears optional fields; runAt clears cron and maxRuns; cron clears runAt", async () => {
      const { body: task } = await create({
        name: "T",
        prompt: "p",
        cron: "0 8 * * *",
        maxRuns: 3,
        timezone: "Asia/Tokyo",
      })
      const cleared = await api(`/api/schedule/${task.id}`, {
        method: "PATCH",
        body: { timezone: null, maxRuns: null },
      })
      expect(cleared.status).toBe(200)
      expect(cleared.body).not.toHaveProperty("timezone")
      expect(cleared.body).not.toHaveProperty("maxRuns")
      const runAt = inAnHour()
      const once = await api(`/api/schedule/${task.id}`, { method: "PATCH", body: { runAt, name: "Renamed" } })
      expect(once.body).toMatchObject({ name: "Renamed", runAt, nextRun: runAt })
      expect(once.body).not.toHaveProperty("cron")
      const recurring = await api(`/api/schedule/${task.id}`, { method: "PATCH", body: { cron: "0 9 * * *" } })
      expect(recurring.body).toMatchObject({ cron: "0 9 * * *" })
      expect(recurring.body).not.toHaveProperty("runAt")
      // Read-only fields sent back are ignored.
      const roundTrip = await api(`/api/schedule/${task.id}`, { method: "PATCH", body: recurring.body })
      expect(roundTrip).toMatchObject({ status: 200, body: recurring.body })
    })

    it("400 for invalid changes, 404 for a missing task", async () => {
      const { body: task } = await create({ name: "T", prompt: "p", cron: "0 8 * * *" })
      const path = `/api/schedule/${task.id}`
      expect((await api(path, { method: "PATCH", body: { cron: null } })).body).toEqual({
        error: "a task needs a cron or a runAt: set the other one when clearing one",
      })
      expect((await api(path, { method: "PATCH", body: { name: null } })).body).toEqual({
        error: "name is required and cannot be cleared",
      })
      expect((await api(path, { method: "PATCH", body: { cron: "61 * * * *" } })).status).toBe(400)
      expect((await api(path, { method: "PATCH", body: { runAt: "2001-01-01T00:00:00Z" } })).status).toBe(400)
      expect(
        await api("/api/schedule/00000000-0000-4000-8000-000000000000", { method: "PATCH", body: { name: "x" } }),
      ).toMatchObject({ status: 404, body: { error: "Task not found" } })
    })
  })

  describe("request bodies", () => {
    it("a body that does not decode is 400 before the task is looked up", async () => {
      const missing = "/api/schedule/00000000-0000-4000-8000-000000000000"
      expect(await api(missing, { method: "PATCH", body: { maxRuns: 0 } })).toMatchObject({
        status: 400,
        body: { error: "maxRuns: must be a positive integer" },
      })
      expect(await api(missing, { method: "PATCH", body: { maxRuns: 2 } })).toMatchObject({ status: 404 })
    })

    it("words problems in the scheduler's order: unknown fields, then cron and runAt, then each field", async () => {
      expect((await create({ colour: "red", name: 5 })).body.error).toMatch(/^unknown field colour/)
      expect((await create({ name: 5, prompt: "b" })).body.error).toMatch(/^cron or runAt is required/)
      expect((await create({ name: 5, prompt: null, cron: "* * * * *" })).body).toEqual({
        error: "name: Expected string, actual 5; prompt: is required",
      })
    })
  })

  describe("DELETE /api/schedule/:id", () => {
    it("answers { deleted }, then 404", async () => {
      const { body: task } = await create({ name: "T", prompt: "p", cron: "0 8 * * *" })
      expect(await api(`/api/schedule/${task.id}`, { method: "DELETE" })).toMatchObject({
        status: 200,
        body: { deleted: task.id },
      })
      expect(await api(`/api/schedule/${task.id}`, { method: "DELETE" })).toMatchObject({
        status: 404,
        body: { error: "Task not found" },
      })
    })
  })

  describe("/api/schedule/heartbeat", () => {
    it("GET answers the defaults; it is not taken for a task id", async () => {
      expect(await api("/api/schedule/heartbeat")).toMatchObject({
        status: 200,
        body: {
          enabled: false,
          cron: "*/30 * * * *",
          tasks: [],
          destination: null,
          activeHours: null,
          nextRun: null,
          isRunning: false,
        },
      })
      expect((await api("/api/schedule/destinations")).body).toEqual({ destinations: ["Web Inbox", "browser"] })
    })

    it("PATCH sets and clears fields, generating checklist ids; read-only fields are ignored", async () => {
      const patched = await api("/api/schedule/heartbeat", {
        method: "PATCH",
        body: {
          enabled: true,
          cron: "0 * * * *",
          tasks: [{ description: "Check the backups" }],
          destination: "Web Inbox",
          activeHours: { start: "22:00", end: "06:00" },
          nextRun: "ignored",
          isRunning: true,
        },
      })
      expect(patched.status).toBe(200)
      expect(patched.body).toEqual({
        enabled: true,
        cron: "0 * * * *",
        tasks: [{ id: expect.stringMatching(uuid), description: "Check the backups", enabled: true }],
        destination: "Web Inbox",
        activeHours: { start: "22:00", end: "06:00" },
        nextRun: expect.stringMatching(isoTimestamp),
        isRunning: false,
      })
      const cleared = await api("/api/schedule/heartbeat", {
        method: "PATCH",
        body: { destination: null, activeHours: null, enabled: false },
      })
      expect(cleared.body).toMatchObject({ enabled: false, destination: null, activeHours: null, nextRun: null })
      expect(cleared.body.tasks).toEqual(patched.body.tasks)
      expect((await api("/api/config")).body.schedule.heartbeat).toEqual({
        enabled: false,
        cron: "0 * * * *",
        tasks: patched.body.tasks,
      })
    })

    it("PATCH answers 400 for an invalid cron, window or destination", async () => {
      for (const [body, message] of [
        [{ cron: "often" }, /^cron: invalid cron expression/],
        [{ activeHours: { start: "9:00", end: "17:00" } }, /^activeHours.start: "9:00" is not a time of day/],
        [{ destination: "fax" }, /^unknown destination "fax"/],
        [{ tasks: [{ id: "x", description: "d" }] }, /^tasks.0.id: "x" is not a UUID/],
      ] as const) {
        const response = await api("/api/schedule/heartbeat", { method: "PATCH", body })
        expect(response.status).toBe(400)
        expect(response.body.error).toMatch(message)
      }
    })
  })

  describe("authentication", () => {
    it.each([
      ["GET", "/api/schedule"],
      ["POST", "/api/schedule"],
      ["GET", "/api/schedule/heartbeat"],
      ["PATCH", "/api/schedule/heartbeat"],
      ["GET", "/api/schedule/some-id"],
      ["PATCH", "/api/schedule/some-id"],
      ["DELETE", "/api/schedule/some-id"],
    ])("%s %s answers 401 unauthorized without a token", async (method, path) => {
      const response = await request(`${server.url}${path}`, {
        method,
        ...(method === "POST" || method === "PATCH" ? { body: {} } : {}),
      })
      expect(response).toMatchObject({ status: 401, body: { error: "unauthorized" } })
    })
  })

  describe("firing", () => {
    it("a one-time task runs its prompt in its own thread, lands in the web inbox and is removed", async () => {
      server.model.script({ text: "Remember to call Bob." })
      const runAt = new Date(Date.now() + 1_500).toISOString()
      const { body: task } = await create({
        name: "Reminder",
        prompt: "Remind me to call Bob",
        runAt,
        destination: "Web Inbox",
      })
      const message = await eventually(
        async () => (await api("/api/inbox")).body.messages.find((candidate: any) => candidate.subject === "Reminder"),
        { timeoutMs: 10_000, intervalMs: 50 },
      )
      expect(message).toMatchObject({
        body: "Remember to call Bob.",
        threadId: `task-${task.id}`,
        destination: "web",
        status: "sent",
        read: false,
      })
      const thread = await api(`/api/threads/task-${task.id}`)
      expect(thread.body.thread.title).toBe("Reminder")
      expect(thread.body.messages.map((entry: any) => entry.role)).toEqual(["user", "assistant"])
      await eventually(async () => ((await api("/api/schedule")).body.tasks.length === 0 ? true : undefined))
      expect(await api(`/api/schedule/${task.id}`)).toMatchObject({ status: 404 })
    })

    it("a task pausing on a tool that needs approval says so in the inbox; the owner approves later", async () => {
      const fixture = mcpStdioServerPath
      await api("/api/config", {
        method: "PATCH",
        body: { mcpServers: { files: { command: process.execPath, args: [fixture] } } },
      })
      await eventually(
        async () => ((await api("/api/mcp-servers")).body.servers[0]?.tools.length > 0 ? true : undefined),
        { timeoutMs: 10_000 },
      )
      server.model.script(
        { text: "Let me check. ", toolCalls: [{ id: "s1", name: "files_echo", arguments: { text: "report" } }] },
        { text: "Checked." },
      )
      const { body: task } = await create({
        name: "Nightly check",
        prompt: "Check the files",
        runAt: new Date(Date.now() + 1_500).toISOString(),
        destination: "Web Inbox",
      })
      const message = await eventually(
        async () =>
          (await api("/api/inbox")).body.messages.find((candidate: any) => candidate.subject === "Nightly check"),
        { timeoutMs: 10_000, intervalMs: 50 },
      )
      expect(message.body).toBe(
        "Let me check.\n\nWaiting for your approval of `files_echo`: open the conversation to approve or deny.",
      )
      const thread = await api(`/api/threads/task-${task.id}`)
      const assistant = thread.body.messages.at(-1)
      const response = await fetch(`${server.url}/api/chat/approve`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
        body: JSON.stringify({ runId: assistant.metadata.runId, threadId: `task-${task.id}`, approved: true }),
      })
      expect(response.status).toBe(200)
      expect(await response.text()).toContain("Checked.")
      await api("/api/config", { method: "PATCH", body: { mcpServers: { files: null } } })
    })
  })
})
