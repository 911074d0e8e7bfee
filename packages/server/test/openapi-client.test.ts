import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callsOf, clientWorkspace } from "./support/openapiClient.js"
import { request, startServer, type TestServer } from "./support/server.js"

/**
 * A client generated from the live document (openapi-typescript + openapi-fetch, as an
 * application would) must type-check a call to every operation, with the types SPEC gives:
 * numeric paging, the chat headers, the resume header.
 */
describe("a client generated from GET /api/openapi.json", () => {
  let server: TestServer
  let document: any
  let workspace: Awaited<ReturnType<typeof clientWorkspace>>
  beforeAll(async () => {
    server = await startServer()
    document = (await request(`${server.url}/api/openapi.json`)).body
    workspace = await clientWorkspace(document)
  }, 60_000)
  afterAll(async () => {
    workspace?.close()
    await server?.close()
  })

  it("reports the version GET / reports and a server to send requests to", async () => {
    const status = await request(`${server.url}/`)
    expect(document.info.version).toBe(status.body.version)
    expect(document.servers).toEqual([expect.objectContaining({ url: "/" })])
  })

  it("gives every operation a summary", () => {
    const missing = callsOf(document)
      .map(({ operation }) => operation)
      .filter((operation) => {
        const [method, path] = operation.split(" ") as [string, string]
        return typeof document.paths[path][method.toLowerCase()].summary !== "string"
      })
    expect(missing).toEqual([])
  })

  it("type-checks a call to every operation, with SPEC's parameter and header types", () => {
    const calls = callsOf(document)
    expect(calls.length).toBeGreaterThan(30)
    const source = [
      ...calls.map(({ operation, code }) => `  // ${operation}\n  ${code}`),
      // Paging takes numbers (perPage also false), as SPEC's responses report them.
      `  await client.GET("/api/threads", { params: { query: { page: 2, perPage: 20 } } })`,
      `  await client.GET("/api/threads", { params: { query: { perPage: false } } })`,
      `  await client.GET("/api/inbox", { params: { query: { archived: true } } })`,
      // The expect-error directive fails the check if the document ever types page as a string again.
      `  // @ts-expect-error page is a number`,
      `  await client.GET("/api/threads", { params: { query: { page: "1" } } })`,
      // Reconnecting sends the last event id.
      `  await client.GET("/api/chat/{threadId}/stream", { params: { path: { threadId: "t" }, header: { "last-event-id": "7" } } })`,
      // A new chat's thread and run ids are typed response headers.
      `  type Sent = paths["/api/chat"]["post"]["responses"][200]["headers"]`,
      `  const sent: Sent = { "X-Thread-Id": "t", "X-Run-Id": "r" }`,
      `  const threadId: string = sent["X-Thread-Id"]`,
      `  const runId: string = sent["X-Run-Id"]`,
      `  // @ts-expect-error X-Run-Id is always sent with a stream`,
      `  const noRun: Sent = { "X-Thread-Id": "t" }`,
      `  type Approved = paths["/api/chat/approve"]["post"]["responses"][200]["headers"]`,
      `  const approved: Approved = { "X-Thread-Id": threadId, "X-Run-Id": runId }`,
      `  type Resumed = paths["/api/chat/{threadId}/stream"]["get"]["responses"][200]["headers"]`,
      `  const resumed: Resumed = { "X-Thread-Id": approved["X-Thread-Id"] }`,
      `  void [noRun, resumed]`,
    ].join("\n")
    expect(workspace.compile("calls", source).errors).toEqual([])
  }, 60_000)

  it("fails the type check on a wrong parameter type, so the check above bites", () => {
    const { errors } = workspace.compile(
      "wrong",
      `  await client.GET("/api/threads", { params: { query: { page: "1" } } })`,
    )
    expect(errors).toEqual([expect.stringMatching(/^wrong\.ts:5: .*'string' is not assignable to type 'number'/s)])
  }, 60_000)
})
