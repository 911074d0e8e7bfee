import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

describe.each(storageKinds)("working memory over HTTP (%s)", (storage) => {
  let server: TestServer
  let token: string
  const working = (init: { readonly method?: string; readonly body?: unknown } = {}) =>
    request(`${server.url}/api/memory/working`, { ...init, token })
  const enable = (enabled: boolean) =>
    request(`${server.url}/api/config`, {
      method: "PATCH",
      token,
      body: { memory: { workingMemory: { enabled } } },
    })

  beforeAll(async () => {
    server = await startServer({ storage })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  it("is { content: null } before anything was written", async () => {
    expect(await working()).toMatchObject({ status: 200, body: { content: null } })
  })

  it("PUT while working memory is disabled is 409 saying which setting, and stores nothing", async () => {
    expect((await enable(false)).status).toBe(200)
    const refused = await working({ method: "PUT", body: { content: "# Notes" } })
    expect(refused).toMatchObject({
      status: 409,
      body: { error: "Working memory is disabled (memory.enabled or memory.workingMemory.enabled is false)" },
    })
    expect((await enable(true)).status).toBe(200)
    expect((await working()).body).toEqual({ content: null })
  })

  it("PUT overwrites the document and answers it; GET reads it back", async () => {
    expect((await enable(true)).status).toBe(200)
    const first = await working({ method: "PUT", body: { content: "# Notes\n- likes tea" } })
    expect(first).toMatchObject({ status: 200, body: { content: "# Notes\n- likes tea" } })
    const second = await working({ method: "PUT", body: { content: "# Notes\n- likes coffee" } })
    expect(second.body).toEqual({ content: "# Notes\n- likes coffee" })
    expect((await working()).body).toEqual({ content: "# Notes\n- likes coffee" })
    // An empty document is a document, not "none".
    expect((await working({ method: "PUT", body: { content: "" } })).body).toEqual({ content: "" })
    expect((await working()).body).toEqual({ content: "" })
  })

  it.each([
    ["a number", { content: 7 }],
    ["null", { content: null }],
    ["no content", {}],
    ["an array body", []],
  ])("PUT with %s is 400 'content must be a string'", async (_name, body) => {
    expect((await enable(true)).status).toBe(200)
    expect(await working({ method: "PUT", body })).toMatchObject({
      status: 400,
      body: { error: "content must be a string" },
    })
  })

  it("PUT over 16 KiB (UTF-8) is 400 naming the limit; exactly 16 KiB is accepted", async () => {
    expect((await enable(true)).status).toBe(200)
    const limit = 16 * 1024
    expect((await working({ method: "PUT", body: { content: "x".repeat(limit) } })).status).toBe(200)
    // 8,193 two-byte characters: under the limit in characters, over it in bytes.
    const tooLarge = await working({ method: "PUT", body: { content: "é".repeat(limit / 2 + 1) } })
    expect(tooLarge).toMatchObject({
      status: 400,
      body: { error: `Working memory is limited to ${limit} bytes (UTF-8); this would be ${limit + 2}` },
    })
    expect(((await working()).body as { content: string }).content).toBe("x".repeat(limit))
  })

  it("PUT with control characters (other than tab and line breaks) is 400, and stores nothing", async () => {
    expect((await enable(true)).status).toBe(200)
    expect((await working({ method: "PUT", body: { content: "tabs\tand\r\nlines" } })).status).toBe(200)
    const refused = await working({ method: "PUT", body: { content: "bell\u0007" } })
    expect(refused).toMatchObject({
      status: 400,
      body: { error: "Working memory must not contain control characters (tab and line breaks are fine)" },
    })
    expect((await working()).body).toEqual({ content: "tabs\tand\r\nlines" })
  })

  it("GET while disabled is { content: null } (the document is kept for when it is on again)", async () => {
    expect((await enable(true)).status).toBe(200)
    await working({ method: "PUT", body: { content: "kept" } })
    expect((await enable(false)).status).toBe(200)
    expect((await working()).body).toEqual({ content: null })
    expect((await enable(true)).status).toBe(200)
    expect((await working()).body).toEqual({ content: "kept" })
  })
})
