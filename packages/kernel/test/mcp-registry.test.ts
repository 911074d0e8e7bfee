import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { type AddressInfo, createServer } from "node:net"
import { homedir, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { mcpStdioServerPath, startMcpHttpFixture } from "@aide/testing/fixtures"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as AppConfig from "../src/config/AppConfig.js"
import * as McpOAuth from "../src/mcp/McpOAuth.js"
import * as McpRegistry from "../src/mcp/McpRegistry.js"
import { isAlive } from "../src/mcp/ProcessExit.js"
import { defaultWorkingDirectory } from "../src/mcp/WorkingDirectory.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"

const fixture = mcpStdioServerPath
const stdio = (...args: Array<string>) => ({ command: process.execPath, args: [fixture, ...args] })
const context = { threadId: "t", runId: "r", toolCallId: "c" }
const tmp = mkdtempSync(join(tmpdir(), "aide-mcp-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
let pidfiles = 0
const pidfile = () => join(tmp, `pid-${++pidfiles}`)
const readPid = (path: string) => Number(readFileSync(path, "utf8"))

interface Harness {
  readonly registry: McpRegistry.McpRegistry["Type"]
  readonly config: AppConfig.AppConfig["Type"]
  readonly tools: ToolRegistry.ToolRegistry["Type"]
  readonly close: () => Promise<void>
}

/** The registry as the kernel composes it, with an in-memory config; `close` is stopping the server. */
const start = async (options: McpRegistry.McpRegistryOptions = {}): Promise<Harness> => {
  const scope = Effect.runSync(Scope.make())
  const layer = McpRegistry.layer(options).pipe(
    Layer.provideMerge(Layer.mergeAll(AppConfig.layerMemory, ToolRegistry.layer, McpOAuth.layerDisabled())),
    Layer.provide(ModelRegistry.layer({ env: {} })),
  )
  const services = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return {
    registry: Context.get(services, McpRegistry.McpRegistry),
    config: Context.get(services, AppConfig.AppConfig),
    tools: Context.get(services, ToolRegistry.ToolRegistry),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  }
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const patch = (h: Harness, mcpServers: Record<string, unknown>) => run(h.config.patch({ mcpServers }))
const list = (h: Harness) => run(h.registry.list)
const server = async (h: Harness, id: string) => (await list(h)).find((s) => s.id === id)

/** Polls until `check` returns a value (real time: child processes are involved). */
const eventually = async <A>(check: () => Promise<A | undefined> | A | undefined, timeoutMs = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const connected = (h: Harness, id: string) =>
  eventually(async () => {
    const status = await server(h, id)
    if (status?.error) throw new Error(`${id} failed: ${status.error}`)
    return status !== undefined && status.tools.length > 0 ? status : undefined
  })
const failed = (h: Harness, id: string) =>
  eventually(async () => {
    const status = await server(h, id)
    return status?.error ? status : undefined
  })

const tool = async (h: Harness, sourceId: string, name: string) => {
  const source = (await run(h.tools.sources)).find((s) => s.id === sourceId)
  const found = (await run(source?.tools ?? Effect.succeed([]))).find((t) => t.name === name)
  if (found === undefined) throw new Error(`no tool ${name} on ${sourceId}`)
  return found
}
const call = async (h: Harness, sourceId: string, name: string, input: unknown = {}) =>
  run((await tool(h, sourceId, name)).execute(input, context))
const callError = async (h: Harness, sourceId: string, name: string, input: unknown = {}) =>
  run(Effect.flip((await tool(h, sourceId, name)).execute(input, context)))
const sourceIds = async (h: Harness) => (await run(h.tools.sources)).map((s) => s.id)
/** A loopback port nobody listens on (just released). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
const gone = (pid: number) => eventually(() => (isAlive(pid) ? undefined : true), 10_000)

describe("McpRegistry: stdio servers", () => {
  it("connects a configured server and registers its tools as an mcp source", async () => {
    const h = await start()
    try {
      await patch(h, { files: stdio() })
      const status = await connected(h, "files")
      expect(status).toMatchObject({
        id: "files",
        name: "files",
        type: "stdio",
        enabled: true,
        requireApproval: true,
        error: null,
      })
      expect(status.authUrl).toBeUndefined()
      expect(status.tools.map((t) => t.id)).toEqual([
        "files_echo",
        "files_add",
        "files_fail",
        "files_slow",
        "files_env",
        "files_deep",
        "files_pid",
      ])
      expect(status.tools[0]).toEqual({ id: "files_echo", name: "echo", description: "Echoes the text back" })
      const source = (await run(h.tools.sources)).find((s) => s.id === "files")
      expect(source?.kind).toBe("mcp")
      const echo = await tool(h, "files", "echo")
      expect(echo.requireApproval).toBe(true)
      expect(echo.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } })
    } finally {
      await h.close()
    }
  })

  it("runs tools: text joined, structured content as is, isError as a ToolExecutionError", async () => {
    const h = await start({ requestTimeout: "300 millis" })
    try {
      await patch(h, { calc: { ...stdio(), name: "Calculator", requireApproval: false } })
      const status = await connected(h, "calc")
      expect(status).toMatchObject({ name: "Calculator", requireApproval: false })
      expect((await tool(h, "calc", "add")).requireApproval).toBe(false)
      expect(await call(h, "calc", "echo", { text: "hi" })).toBe("hi")
      expect(await call(h, "calc", "add", { a: 2, b: 3 })).toEqual({ sum: 5 })
      const failure = await callError(h, "calc", "fail")
      expect(failure._tag).toBe("ToolExecutionError")
      expect(failure.message).toBe("the fixture failed on purpose")
      const started = Date.now()
      const timeout = await callError(h, "calc", "slow", { ms: 5_000 })
      expect(timeout.message).toBe("tool slow timed out after 300ms")
      expect(Date.now() - started).toBeLessThan(2_000)
      // The connection survives a timed-out call.
      expect(await call(h, "calc", "echo", { text: "still here" })).toBe("still here")
    } finally {
      await h.close()
    }
  })

  it("gives the child only the SDK's default environment plus the variables named in env", async () => {
    process.env.AIDE_TEST_HOST_CANARY = "host-secret"
    const h = await start({ env: { AIDE_TEST_CANARY: "canary-secret", AIDE_TEST_FORWARDED: "forwarded", PATH: "/x" } })
    try {
      await patch(h, { envy: { ...stdio(), env: ["AIDE_TEST_FORWARDED", "AIDE_TEST_ABSENT"] } })
      await connected(h, "envy")
      expect(await call(h, "envy", "env", { name: "AIDE_TEST_FORWARDED" })).toBe("forwarded")
      expect(await call(h, "envy", "env", { name: "AIDE_TEST_CANARY" })).toBe("<unset>")
      expect(await call(h, "envy", "env", { name: "AIDE_TEST_HOST_CANARY" })).toBe("<unset>")
      expect(await call(h, "envy", "env", { name: "AIDE_TEST_ABSENT" })).toBe("<unset>")
      // The minimal default set still comes from the host.
      expect(await call(h, "envy", "env", { name: "PATH" })).toBe(process.env.PATH)
    } finally {
      delete process.env.AIDE_TEST_HOST_CANARY
      await h.close()
    }
  })
})

describe("McpRegistry: live reconcile", () => {
  it("adds, changes, disables and removes servers, leaving no child process behind", async () => {
    const h = await start()
    try {
      await patch(h, { a: stdio(), b: stdio() })
      await connected(h, "a")
      await connected(h, "b")
      expect((await sourceIds(h)).sort()).toEqual(["a", "b"])
      const firstPid = Number(await call(h, "a", "pid"))

      // changed → reconnected: a new process, the old one gone
      await patch(h, { a: { args: [fixture, "--name", "renamed"] } })
      const secondPid = await eventually(async () => {
        const pid = Number(await call(h, "a", "pid").catch(() => firstPid))
        return pid !== firstPid ? pid : undefined
      })
      await gone(firstPid)

      // disabled → still listed, no tools, no error, process gone, source unregistered
      await patch(h, { a: { enabled: false } })
      await gone(secondPid)
      await eventually(async () => ((await sourceIds(h)).includes("a") ? undefined : true))
      expect(await server(h, "a")).toMatchObject({ enabled: false, tools: [], error: null })

      // enabled again → connects
      await patch(h, { a: { enabled: true } })
      await connected(h, "a")
      const thirdPid = Number(await call(h, "a", "pid"))

      // removed → not listed, source gone, process gone
      const bPid = Number(await call(h, "b", "pid"))
      await patch(h, { b: null })
      expect((await list(h)).map((s) => s.id)).toEqual(["a"])
      await gone(bPid)
      await eventually(async () => ((await sourceIds(h)).includes("b") ? undefined : true))
      expect(isAlive(thirdPid)).toBe(true)
    } finally {
      await h.close()
    }
  })

  it("membership follows the config at once: a server disabled, then removed, is unlisted immediately", async () => {
    const h = await start()
    try {
      const file = pidfile()
      // Stubborn: closing it takes seconds (stdin, then SIGTERM after 2 s, then SIGKILL).
      await patch(h, { slow: stdio("--stubborn", "--pidfile", file), other: stdio() })
      await connected(h, "slow")
      await patch(h, { slow: { enabled: false } })
      await patch(h, { slow: null })
      expect((await list(h)).map((s) => s.id)).toEqual(["other"])
      // …and added back at once, listed at once (its state may lag: not connected yet).
      await patch(h, { slow: stdio() })
      expect((await list(h)).map((s) => s.id)).toEqual(["other", "slow"])
      await gone(readPid(file))
    } finally {
      await h.close()
    }
  }, 20_000)

  it("stops every child when the registry's scope closes", async () => {
    const h = await start()
    await patch(h, { one: stdio(), two: stdio() })
    await connected(h, "one")
    await connected(h, "two")
    const pids = [Number(await call(h, "one", "pid")), Number(await call(h, "two", "pid"))]
    await h.close()
    for (const pid of pids) expect(isAlive(pid)).toBe(false)
  })

  it("kills a child that ignores stdin closing and SIGTERM", async () => {
    const h = await start()
    try {
      const file = pidfile()
      await patch(h, { stubborn: stdio("--stubborn", "--pidfile", file) })
      await connected(h, "stubborn")
      const pid = readPid(file)
      await patch(h, { stubborn: null })
      await gone(pid)
    } finally {
      await h.close()
    }
  }, 20_000)
})

describe("McpRegistry: working directory of stdio servers", () => {
  it("is the user's home by default, never Aide's own working directory", () => {
    expect(defaultWorkingDirectory()).toBe(homedir())
    expect(defaultWorkingDirectory()).not.toBe(process.cwd())
  })

  it("is the registry's cwd option, or the server's own cwd when it has one", async () => {
    const base = mkdtempSync(join(tmp, "cwd-"))
    const own = join(base, "own")
    mkdirSync(own)
    const h = await start({ cwd: base })
    try {
      // A relative pidfile lands in the process's working directory.
      await patch(h, {
        plain: stdio("--pidfile", "plain.pid"),
        placed: { ...stdio("--pidfile", "placed.pid"), cwd: own },
      })
      await connected(h, "plain")
      await connected(h, "placed")
      expect(existsSync(join(base, "plain.pid"))).toBe(true)
      expect(existsSync(join(own, "placed.pid"))).toBe(true)
      expect(existsSync(join(process.cwd(), "plain.pid"))).toBe(false)
    } finally {
      await h.close()
    }
  })

  it("reports a cwd that does not exist", async () => {
    const h = await start()
    try {
      const missing = join(tmp, "no-such-dir")
      await patch(h, { lost: { ...stdio(), cwd: missing } })
      expect((await failed(h, "lost")).error).toBe(`working directory not found: ${missing}`)
    } finally {
      await h.close()
    }
  })

  it("refuses a relative cwd, and a cwd on an HTTP server", async () => {
    const h = await start()
    try {
      const problems = (mcpServers: Record<string, unknown>) =>
        run(Effect.flip(h.config.patch({ mcpServers }))).then((error) => ("problems" in error ? error.problems : []))
      expect(await problems({ r: { ...stdio(), cwd: "work" } })).toEqual([
        "mcpServers.r.cwd: must be an absolute path (or start with ~/)",
      ])
      expect((await problems({ w: { url: "https://mcp.example.com/mcp", cwd: "/tmp" } }))[0]).toMatch(
        /^mcpServers\.w: has a cwd but no command/,
      )
    } finally {
      await h.close()
    }
  })
})

describe("McpRegistry: failures", () => {
  it("reports a missing command", async () => {
    const h = await start()
    try {
      await patch(h, { nope: { command: "aide-no-such-command-xyz" } })
      expect((await failed(h, "nope")).error).toBe("command not found: aide-no-such-command-xyz")
      expect((await server(h, "nope"))?.tools).toEqual([])
      expect(await sourceIds(h)).toEqual([])
    } finally {
      await h.close()
    }
  })

  it("reports a server that exits at start with its last stderr line", async () => {
    const h = await start()
    try {
      await patch(h, { crash: stdio("--crash") })
      expect((await failed(h, "crash")).error).toBe(
        "server closed the connection: fixture: missing FIXTURE_TOKEN, giving up",
      )
    } finally {
      await h.close()
    }
  })

  it("times out a hanging server, kills it, and connects the others meanwhile", async () => {
    // Long enough for a loaded machine to start the fine one; the hanging one is still waiting then.
    const h = await start({ connectTimeout: "3 seconds" })
    try {
      const file = pidfile()
      await patch(h, { hang: stdio("--hang", "--pidfile", file), fine: stdio() })
      await connected(h, "fine")
      expect((await server(h, "hang"))?.error).toBeNull()
      expect((await failed(h, "hang")).error).toBe("connection timed out after 3s")
      await gone(await eventually(() => readPid(file) || undefined))
      expect(await sourceIds(h)).toEqual(["fine"])
    } finally {
      await h.close()
    }
  })
})

describe("McpRegistry: HTTP servers", () => {
  it("connects over streamable HTTP and sends the configured headers", async () => {
    const remote = await startMcpHttpFixture()
    const h = await start()
    try {
      await patch(h, { web: { url: remote.url, headers: { Authorization: "Bearer remote-secret", "X-Team": "a" } } })
      const status = await connected(h, "web")
      expect(status).toMatchObject({ type: "http", tools: [{ id: "web_echo", name: "echo" }] })
      expect(await call(h, "web", "echo", { text: "hi" })).toBe("http: hi")
      expect(remote.requests.length).toBeGreaterThan(0)
      for (const request of remote.requests) {
        expect(request.headers.authorization).toBe("Bearer remote-secret")
        expect(request.headers["x-team"]).toBe("a")
      }
    } finally {
      await h.close()
      await remote.close()
    }
  })

  it("falls back to the legacy SSE transport", async () => {
    const remote = await startMcpHttpFixture("sse")
    const h = await start()
    try {
      await patch(h, { legacy: { url: remote.url, headers: { "X-Key": "k" } } })
      await connected(h, "legacy")
      expect(await call(h, "legacy", "echo", { text: "old" })).toBe("http: old")
      expect(remote.requests.some((r) => r.method === "GET" && r.path === "/sse")).toBe(true)
      expect(remote.requests.filter((r) => r.path === "/messages").every((r) => r.headers["x-key"] === "k")).toBe(true)
    } finally {
      await h.close()
      await remote.close()
    }
  })

  it("reports an HTTP error status and a refused connection", async () => {
    const remote = await startMcpHttpFixture("unauthorized")
    const h = await start()
    try {
      const port = await freePort()
      await patch(h, { locked: { url: remote.url }, closed: { url: `http://127.0.0.1:${port}/mcp` } })
      expect((await failed(h, "locked")).error).toBe("HTTP 401: bad token")
      expect((await failed(h, "closed")).error).toBe(`connection refused: 127.0.0.1:${port}`)
    } finally {
      await h.close()
      await remote.close()
    }
  })

  it("reports that OAuth needs a public URL when OAuth is disabled", async () => {
    const remote = await startMcpHttpFixture("unauthorized")
    const h = await start()
    try {
      await patch(h, { oauthy: { url: remote.url, oauth: true } })
      expect((await failed(h, "oauthy")).error).toContain(McpOAuth.defaultDisabledMessage)
    } finally {
      await h.close()
      await remote.close()
    }
  })
})

describe("McpRegistry: a third-party server", () => {
  it("runs @modelcontextprotocol/server-everything over stdio", async () => {
    const require = createRequire(import.meta.url)
    const pkg = require.resolve("@modelcontextprotocol/server-everything/package.json")
    const entry = join(dirname(pkg), "dist/index.js")
    const h = await start()
    try {
      await patch(h, { everything: { command: process.execPath, args: [entry, "stdio"] } })
      const status = await connected(h, "everything")
      expect(status.tools.length).toBeGreaterThanOrEqual(10)
      expect(status.tools.map((t) => t.id)).toContain("everything_echo")
      expect(await call(h, "everything", "echo", { message: "hello" })).toContain("hello")
    } finally {
      await h.close()
    }
  })
})
