import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/chat.js"
import { request, setup, startServer, type TestServer } from "./support/server.js"

const readme = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8")
/** The body of the README's `PATCH /api/config` adding an MCP server, exactly as printed. */
const readmeBody = /-d '(\{"mcpServers":.*\})'/.exec(readme)?.[1]
const serverPackage = fileURLToPath(new URL("..", import.meta.url))

/** npm could not reach its registry (offline, no cached package): not what this test is about. */
const offline = (error: string) =>
  /npm (error|ERR!)/.test(error) && /ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ENETUNREACH/.test(error)

describe("the README's MCP example", () => {
  let server: TestServer
  let token: string
  const previous = process.cwd()

  beforeAll(async () => {
    // As `pnpm start` runs it: in the server package, whose node_modules makes `npx` look for the
    // package there ("mcp-server-everything: not found") when children inherit our directory.
    process.chdir(serverPackage)
    server = await startServer()
    token = (await setup(server)).token
  })
  afterAll(async () => {
    process.chdir(previous)
    await server?.close()
  })

  it("is found in the README", () => {
    expect(readmeBody).toBeDefined()
    expect(JSON.parse(readmeBody!)).toEqual({
      mcpServers: { everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] } },
    })
  })

  it("runs as written under `pnpm start` and lists the server's tools", async (context) => {
    const patched = await request(`${server.url}/api/config`, { token, method: "PATCH", body: JSON.parse(readmeBody!) })
    expect(patched.status).toBe(200)
    const everything = await eventually(
      async () => {
        const listed = (await request(`${server.url}/api/mcp-servers`, { token })).body.servers as Array<any>
        const found = listed.find((s) => s.id === "everything")
        return found?.tools.length > 0 || found?.error ? found : undefined
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    )
    if (everything.error !== null && offline(everything.error)) {
      context.skip(`npx cannot fetch @modelcontextprotocol/server-everything here: ${everything.error}`)
    }
    expect(everything.error).toBeNull()
    expect(everything.tools.map((t: { id: string }) => t.id)).toContain("everything_echo")
  }, 90_000)
})
