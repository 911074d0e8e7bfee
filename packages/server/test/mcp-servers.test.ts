import { mcpStdioServerPath } from "@aide/testing/fixtures"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/chat.js"
import { request, setup, startServer, storageKinds, type TestServer } from "./support/server.js"

const fixture = mcpStdioServerPath

describe.each(storageKinds)("GET /api/mcp-servers (%s)", (storage) => {
  let server: TestServer
  let token: string

  const api = (path: string, init: { readonly method?: string; readonly body?: unknown } = {}) =>
    request(`${server.url}${path}`, { token, ...init })
  const servers = async () => (await api("/api/mcp-servers")).body.servers as Array<any>
  const find = async (id: string) => (await servers()).find((s) => s.id === id)

  beforeAll(async () => {
    server = await startServer({ storage, env: { AIDE_TEST_FORWARDED: "yes" } })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  it("without a token is 401 unauthorized", async () => {
    const response = await request(`${server.url}/api/mcp-servers`)
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: "unauthorized" })
  })

  it("answers { servers: [] } when none is configured", async () => {
    const response = await api("/api/mcp-servers")
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ servers: [] })
  })

  it("lists servers added through PATCH /api/config, with their tools once connected", async () => {
    const patched = await api("/api/config", {
      method: "PATCH",
      body: {
        mcpServers: {
          local: { command: process.execPath, args: [fixture], name: "Local fixture", env: ["AIDE_TEST_FORWARDED"] },
          broken: { command: "aide-no-such-command-xyz", requireApproval: false },
          off: { url: "https://mcp.example.com/mcp", enabled: false },
        },
      },
    })
    expect(patched.status).toBe(200)
    const local = await eventually(async () => {
      const found = await find("local")
      return found?.tools.length > 0 ? found : undefined
    })
    expect(local).toEqual({
      id: "local",
      name: "Local fixture",
      type: "stdio",
      enabled: true,
      requireApproval: true,
      tools: expect.arrayContaining([
        { id: "local_echo", name: "echo", description: "Echoes the text back" },
        { id: "local_add", name: "add", description: "Adds two numbers" },
      ]),
      error: null,
    })
    const broken = await eventually(async () => {
      const found = await find("broken")
      return found?.error ? found : undefined
    })
    expect(broken).toEqual({
      id: "broken",
      name: "broken",
      type: "stdio",
      enabled: true,
      requireApproval: false,
      tools: [],
      error: "command not found: aide-no-such-command-xyz",
    })
    expect(await find("off")).toEqual({
      id: "off",
      name: "off",
      type: "http",
      enabled: false,
      requireApproval: true,
      tools: [],
      error: null,
    })
    expect((await servers()).map((s) => s.id)).toEqual(["local", "broken", "off"])

    // null removes a server
    await api("/api/config", { method: "PATCH", body: { mcpServers: { broken: null, off: null, local: null } } })
    expect(await servers()).toEqual([])
  })

  it("a server disabled, then removed, is gone from the list at once (its process may still be closing)", async () => {
    await api("/api/config", {
      method: "PATCH",
      body: { mcpServers: { slow: { command: process.execPath, args: [fixture, "--stubborn"] } } },
    })
    await eventually(async () => ((await find("slow"))?.tools.length > 0 ? true : undefined))
    expect(
      (await api("/api/config", { method: "PATCH", body: { mcpServers: { slow: { enabled: false } } } })).status,
    ).toBe(200)
    expect((await api("/api/config", { method: "PATCH", body: { mcpServers: { slow: null } } })).status).toBe(200)
    expect(await servers()).toEqual([])
  })

  describe("POST /api/mcp-servers (not in SPEC: a convenience over PATCH /api/config)", () => {
    const post = (body: unknown) => api("/api/mcp-servers", { method: "POST", body })
    const remove = (id: string) => api("/api/config", { method: "PATCH", body: { mcpServers: { [id]: null } } })

    it("adds the server to the config and answers 201 with it as GET /api/mcp-servers lists it", async () => {
      const created = await post({ id: "added", command: process.execPath, args: [fixture], requireApproval: false })
      try {
        expect(created.status).toBe(201)
        expect(created.body).toEqual({
          id: "added",
          command: process.execPath,
          args: [fixture],
          name: "added",
          type: "stdio",
          enabled: true,
          requireApproval: false,
          tools: [],
          error: null,
        })
        const config = await api("/api/config")
        expect(config.body.mcpServers.added).toEqual({
          command: process.execPath,
          args: [fixture],
          requireApproval: false,
        })
        await eventually(async () => ((await find("added"))?.tools.length > 0 ? true : undefined))
      } finally {
        await remove("added")
      }
    })

    it("is 409 when the id exists, and changes nothing", async () => {
      await post({ id: "taken", url: "https://mcp.example.com/mcp", enabled: false })
      try {
        const again = await post({ id: "taken", url: "https://other.example.com/mcp" })
        expect(again.status).toBe(409)
        expect(again.body).toEqual({ error: 'MCP server "taken" already exists' })
        expect((await api("/api/config")).body.mcpServers.taken.url).toBe("https://mcp.example.com/mcp")
      } finally {
        await remove("taken")
      }
    })

    it.each([
      ["an empty id", { id: "", command: "x" }, "id must be a non-empty string when given"],
      ["a non-string id", { id: 7, command: "x" }, "id must be a non-empty string when given"],
      // The config keeps no server under it: refused, not a 500 "missing after creation".
      ["the id __proto__", { id: "__proto__", command: "x" }, 'id "__proto__" is reserved'],
      ["neither command nor url", { id: "n" }, "mcpServers.n: needs a command (stdio) or a url (http)"],
      ["an invalid url", { id: "u", url: "ftp://x" }, "mcpServers.u.url: must be an http(s) URL"],
      ["an unknown field", { id: "f", command: "x", colour: "red" }, /^mcpServers\.f\.colour: unknown key/],
    ])("with %s is 400 with the message PATCH /api/config gives, and adds nothing", async (_case, body, message) => {
      const response = await post(body)
      expect(response.status).toBe(400)
      expect(response.body.error).toMatch(message)
      expect(await servers()).toEqual([])
    })

    it("with a body that is not an object is 400", async () => {
      const response = await post([1, 2])
      expect(response.status).toBe(400)
      expect(typeof response.body.error).toBe("string")
    })
  })

  it.each([
    [
      "both command and url",
      { both: { command: "x", url: "https://x.example" } },
      /^mcpServers\.both: has both command and url/,
    ],
    [
      "neither command nor url",
      { neither: { name: "n" } },
      /^mcpServers\.neither: needs a command \(stdio\) or a url \(http\)/,
    ],
    ["an invalid url", { bad: { url: "not a url" } }, /^mcpServers\.bad\.url: must be an http\(s\) URL/],
  ])("PATCH /api/config with %s is 400 and adds no server", async (_case, mcpServers, message) => {
    const response = await api("/api/config", { method: "PATCH", body: { mcpServers } })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatch(message)
    expect(await servers()).toEqual([])
  })
})
