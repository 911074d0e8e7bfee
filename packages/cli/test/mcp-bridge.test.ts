import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, startChatServer } from "../../server/test/support/chat.js"
import { password, request } from "../../server/test/support/server.js"
import { aide, bin, cliEnv, home, root } from "./support/cli.js"

describe("aide mcp: the stdio bridge to /mcp", () => {
  let server: ChatTestServer
  const user = home()
  const env = () => cliEnv({ AIDE_CLI_CONFIG: user.credentials })
  beforeAll(async () => {
    server = await startChatServer()
    const patched = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token: server.token,
      body: { mcpServer: { enabled: true, tools: ["ask", "memory_read", "memory_update"] } },
    })
    expect(patched.status).toBe(200)
    const login = await aide(["login", "--url", server.url, "--password-stdin"], {
      env: { AIDE_CLI_CONFIG: user.credentials },
      input: `${password}\n`,
    })
    expect(login.code).toBe(0)
  })
  afterAll(async () => {
    await server.close()
    user.remove()
  })

  const spawnBridge = () =>
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "--url", server.url],
      env: env(),
      cwd: root,
      stderr: "pipe",
    })

  it("an MCP client spawning `aide mcp` lists and calls the server's tools", async () => {
    const client = new Client({ name: "desktop-app", version: "1.0.0" })
    const transport = spawnBridge()
    await client.connect(transport)
    // What reaches the app's side of the pipe, as it arrives.
    const received: Array<string> = []
    // The progress the bridge relayed, read off the pipe: the SDK's client hands a progress
    // notification to `onprogress` a microtask later, and drops it when the response came in the
    // same read (its handler is gone by then), so `onprogress` alone would race the pipe.
    const progress: Array<number> = []
    const handle = transport.onmessage!
    transport.onmessage = (message) => {
      received.push("method" in message ? message.method : "response")
      if ("method" in message && message.method === "notifications/progress")
        progress.push(Number((message.params as { progress: number }).progress))
      handle(message)
    }
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual(["ask", "memory_read", "memory_update"])
      const updated = await client.callTool({ name: "memory_update", arguments: { content: "From the bridge." } })
      expect(updated.structuredContent).toEqual({ content: "From the bridge." })
      server.model.script({ text: ["Bridged ", "answer."] })
      const asked = await client.callTool({ name: "ask", arguments: { message: "hi" } }, undefined, {
        onprogress: () => {},
      })
      expect(asked.structuredContent).toMatchObject({ status: "done", text: "Bridged answer." })
      expect(received.slice(-3)).toEqual(["notifications/progress", "notifications/progress", "response"])
      expect(progress).toEqual([8, 15])
    } finally {
      await client.close()
    }
  })

  it("refreshes an expired access token with the stored refresh token", async () => {
    // The stored access token is made unusable: the bridge must refresh to get through.
    const { readFileSync, writeFileSync } = await import("node:fs")
    const document = JSON.parse(readFileSync(user.credentials, "utf8"))
    const key = Object.keys(document.servers)[0] as string
    document.servers[key].token = "expired.access.token"
    writeFileSync(user.credentials, JSON.stringify(document))
    const client = new Client({ name: "desktop-app", version: "1.0.0" })
    await client.connect(spawnBridge())
    try {
      const read = await client.callTool({ name: "memory_read", arguments: {} })
      expect(read.structuredContent).toMatchObject({ workingMemory: "From the bridge." })
    } finally {
      await client.close()
    }
    const after = JSON.parse(readFileSync(user.credentials, "utf8"))
    expect(after.servers[key].token).not.toBe("expired.access.token")
  })

  it("without a login it exits 3 with the fix", async () => {
    const result = await aide(["mcp", "--url", server.url], { env: { AIDE_CLI_CONFIG: `${user.dir}/none.json` } })
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("aide login")
  })
})
