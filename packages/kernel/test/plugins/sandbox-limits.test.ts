import { monitorEventLoopDelay } from "node:perf_hooks"
import { Effect, Either } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import type { PluginProcess } from "../../src/plugins/sandbox/PluginProcess.js"
import { call, callFails, closeAll, eventually, fixture, startPlugin } from "./sandbox-support.js"

afterAll(closeAll)

const fast = { callTimeoutMs: 400, startTimeoutMs: 10_000 }
const backoff = { initialMs: 150, maxMs: 1_000 }
const succeeds = async (plugin: PluginProcess) =>
  Either.isRight(await Effect.runPromise(Effect.either(plugin.callTool("ok", {}))))
const alive = (pid: number | undefined) => {
  if (pid === undefined) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("a synchronous infinite loop", () => {
  it("times out, the process is killed and restarted; the host's event loop never waits", async () => {
    const plugin = await startPlugin({ pluginId: "escape", limits: fast, backoff })
    const pid = await Effect.runPromise(plugin.pid)
    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    const started = performance.now()
    const error = await callFails(plugin, "loop")
    const elapsed = performance.now() - started
    delay.disable()
    expect(error).toMatchObject({ _tag: "PluginCallError", reason: "timeout" })
    expect(error.message).toBe("plugin escape: tool.call timed out after 400 ms")
    expect(elapsed).toBeLessThan(2_000)
    expect(delay.max / 1e6).toBeLessThan(100)
    // During the backoff, calls fail fast and say why.
    const during = await callFails(plugin, "ok")
    expect(during.reason).toBe("restarting")
    expect(during.message).toMatch(/restarting after tool\.call timed out after 400 ms/)
    await eventually(async () => !alive(pid))
    await eventually(() => succeeds(plugin))
    expect(await Effect.runPromise(plugin.pid)).not.toBe(pid)
    expect((await Effect.runPromise(plugin.description)).tools.length).toBeGreaterThan(0)
  })
})

describe("a memory bomb", () => {
  it("kills its own process with a clear error; the plugin comes back", async () => {
    const plugin = await startPlugin({
      pluginId: "escape",
      limits: { ...fast, callTimeoutMs: 15_000, memoryMb: 64 },
      backoff,
    })
    const error = await callFails(plugin, "memory")
    expect(error).toMatchObject({ reason: "crashed" })
    expect(error.message).toBe("plugin escape: the plugin process ran out of memory (limit 64 MiB)")
    await eventually(() => succeeds(plugin))
  })
})

describe("a 64 MiB cap", () => {
  it("a plugin with the network grant that compiles its own modules starts and has its heap", async () => {
    // Node's fetch classes (its endowments) load undici, whose WebAssembly memory V8 reserved as
    // much of the address-space cap as was left: the heap's next pages then could not be mapped.
    const plugin = await startPlugin({
      pluginId: "escape",
      limits: { ...fast, memoryMb: 64 },
      permissions: { network: ["example.com"] },
      backoff,
    })
    expect(await call(plugin, "ok")).toBe("ok")
    expect(await call(plugin, "hold")).toBe(24)
  })
})

describe("output", () => {
  it("100 MB of output is refused, the process stays up", async () => {
    const plugin = await startPlugin({ pluginId: "escape" })
    const pid = await Effect.runPromise(plugin.pid)
    const error = await callFails(plugin, "output")
    expect(error).toMatchObject({ reason: "output" })
    expect(error.message).toBe("plugin escape: output too large: more than 1048576 bytes")
    expect(await call(plugin, "ok")).toBe("ok")
    expect(await Effect.runPromise(plugin.pid)).toBe(pid)
  })
})

describe("backoff", () => {
  it("doubles between failed restarts up to its cap", async () => {
    const { delays } = await import("../../src/plugins/sandbox/Supervisor.js")
    const wait = delays({ initialMs: 1_000, maxMs: 60_000 })
    const seen = Array.from({ length: 8 }, () => wait.next(undefined, 0))
    expect(seen).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000])
    // A process that stayed up for the cap earns the initial delay again.
    expect(wait.next(0, 60_000)).toBe(1_000)
  })
})

describe("closing the scope", () => {
  it("kills the process", async () => {
    const plugin = await startPlugin({ pluginId: "basic" })
    const pid = await Effect.runPromise(plugin.pid)
    expect(alive(pid)).toBe(true)
    await closeAll()
    await eventually(async () => !alive(pid))
    const error = await callFails(plugin, "echo", { text: "x" })
    expect(error.message).toMatch(/stopped/)
  })
})

describe("a child that writes too-large or garbage messages", () => {
  it.each([
    ["flood", /^plugin flood: sent a message of \d+ bytes \(limit 2162688\); refused before reading it$/],
    ["garbage", /^plugin flood: sent a message the wire does not know$/],
  ])("%s: the process is killed and the call fails", async (toolId, reason) => {
    const plugin = await startPlugin({
      pluginId: "flood",
      directory: fixture("host"),
      trust: "host",
      entries: { tools: ["flood.mjs"], agents: [], channels: [] },
      backoff,
    })
    const error = await callFails(plugin, toolId)
    expect(error.reason).toBe("protocol")
    expect(error.message).toMatch(reason)
    await eventually(() => succeeds(plugin))
  })
})
