import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { alive, call, cleanup, eventually, pidOf, start, toolsModule, writePlugin } from "./plugin-support.js"

/**
 * Issue 20, findings 4, 6, 10 and 12, issue 24 item 12: what a plugin process can do to the
 * machine after its call returns, and what it can see of Aide's process.
 */

afterAll(cleanup)

const statFields = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
}

const compartment = writePlugin({
  "tools.mjs": toolsModule(
    {
      timers: "return { timeout: typeof AbortSignal.timeout, viaSignal: typeof context.signal.constructor.timeout }",
      later: 'AbortSignal.timeout(50).addEventListener("abort", () => { for (;;) {} }); return "armed"',
      // Returns, then spins once the answer is on its way: no call is in flight while it burns.
      "spin-later":
        'let n = 0; const hop = () => { if (n++ < 10000) return Promise.resolve().then(hop); for (;;) {} }; hop(); return "returned"',
      ok: 'return "ok"',
      flood: 'for (let i = 0; i < 3000; i++) console.log("flood line " + i); return "done"',
      hoard:
        "let mb = 0; try { for (let i = 0; i < 64; i++) { held.push(new Uint8Array(64 * 1024 * 1024)); mb += 64 } } catch (error) { return { mb, error: error.message } } return { mb }",
    },
    "const held = []",
  ),
})

describe("no timers without the time grant (finding 12)", () => {
  it("AbortSignal.timeout is gone from the global and from every signal; with `time` it is there", async () => {
    const bare = await start({ directory: compartment })
    expect(await call(bare.plugin, "timers")).toEqual({ timeout: "undefined", viaSignal: "undefined" })
    await expect(call(bare.plugin, "later")).rejects.toMatchObject({ message: expect.stringMatching(/not a function/) })
    const timed = await start({ directory: compartment, permissions: { time: true } })
    expect(await call(timed.plugin, "timers")).toEqual({ timeout: "function", viaSignal: "function" })
    await Promise.all([bare.close(), timed.close()])
  })
})

describe("the CPU watchdog between calls (finding 4)", () => {
  it("kills a process that spins after its call returned, says why, and the plugin comes back", async () => {
    const { plugin, logs } = await start({
      directory: compartment,
      // A low share: on a loaded test machine a spinning process may get a fifth of a core.
      limits: { watchdog: { intervalMs: 300, share: 0.1, strikes: 2 } },
    })
    const pid = await pidOf(plugin)
    expect(await call(plugin, "spin-later")).toBe("returned")
    await eventually(() => !alive(pid!))
    expect(
      logs.some((line) => /killed by the CPU watchdog: it used \d+% of a CPU with no call in flight/.test(line)),
    ).toBe(true)
    await eventually(async () => (await call(plugin, "ok").catch(() => "down")) === "ok")
    expect(await pidOf(plugin)).not.toBe(pid)
  })

  it("leaves a call alone while it works within its deadline", async () => {
    const directory = writePlugin({
      "tools.mjs": toolsModule({ work: 'const end = Date.now() + 1500; while (Date.now() < end) {} return "done"' }),
    })
    const { plugin, logs } = await start({
      directory,
      trust: "host",
      limits: { callTimeoutMs: 10_000, watchdog: { intervalMs: 300, share: 0.1, strikes: 2 } },
    })
    expect(await call(plugin, "work")).toBe("done")
    expect(logs.filter((line) => line.includes("watchdog"))).toEqual([])
  })
})

describe("plugin logs are rate-limited (finding 4)", () => {
  it("lets through at most the rate and says once how many lines it dropped", async () => {
    const { plugin, logs } = await start({ directory: compartment, limits: { logRate: { lines: 20 } } })
    expect(await call(plugin, "flood")).toBe("done")
    await eventually(() => logs.some((line) => line.includes("plugin log lines dropped")))
    const shown = logs.filter((line) => line.startsWith("flood line")).length
    const notices = logs.filter((line) => line.includes("plugin log lines dropped"))
    expect(notices).toHaveLength(1)
    const dropped = Number(notices[0]!.split(" ")[0])
    expect(shown + dropped).toBe(3000)
    expect(shown).toBeLessThanOrEqual(200)
  })
})

describe("the address-space cap (finding 6)", () => {
  it("a plugin cannot hold gigabytes of typed arrays", async () => {
    const { plugin } = await start({ directory: compartment, limits: { memoryMb: 128, callTimeoutMs: 20_000 } })
    const held = (await call(plugin, "hoard")) as { mb: number; error?: string }
    // 2 GiB for Node itself + 2 × 128 MiB: far from the 4 GiB asked for.
    expect(held.mb).toBeLessThan(1280)
    expect(held.error).toMatch(/Array buffer allocation failed/)
  })
})

describe("under the address-space cap, WebAssembly still works", () => {
  it("a host plugin's own fetch (undici's parser is WebAssembly) reaches a local server", async () => {
    const server = createServer((_request, response) => response.end("hello"))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    const directory = writePlugin({
      "tools.mjs": toolsModule({ get: "return (await fetch(input.url)).text()" }),
    })
    const { plugin } = await start({ directory, trust: "host" })
    expect(await call(plugin, "get", { url: `http://127.0.0.1:${port}/` })).toBe("hello")
    server.close()
  })
})

describe("a host plugin cannot read Aide's environment (finding 10)", () => {
  it("neither /proc/<ppid>/environ nor /proc/<aide pid>/environ; it sees its own processes only", async () => {
    // The positive control: the same read from Aide's own side works.
    expect(readFileSync(`/proc/${process.pid}/environ`, "utf8")).toContain("PATH=")
    const directory = writePlugin({
      "tools.mjs": toolsModule(
        {
          proc: `return { ppid: process.ppid, parent: read("/proc/" + process.ppid + "/environ"),
            aide: read("/proc/" + input.aidePid + "/environ"),
            pids: readdirSync("/proc").filter((name) => /^\\d+$/.test(name)), env: process.env }`,
        },
        `import { readFileSync, readdirSync } from "node:fs"
const read = (file) => { try { return readFileSync(file, "utf8") } catch (error) { return error.code } }`,
      ),
    })
    const { plugin } = await start({ directory, trust: "host", env: { PLUGIN_TOKEN: "t" } })
    const seen = (await call(plugin, "proc", { aidePid: process.pid })) as Record<string, unknown>
    expect(seen.parent).toBe("ENOENT")
    expect(seen.aide).toBe("ENOENT")
    expect(seen.pids).toEqual(["1"])
    expect(seen.env).toEqual({ PLUGIN_TOKEN: "t" })
  })
})

describe("plugin processes in a process group of their own (issue 24, item 12)", () => {
  it("Ctrl-C in Aide's terminal does not reach them; closing stops them without a restart", async () => {
    const { plugin, logs, close } = await start({ directory: compartment })
    const pid = (await pidOf(plugin))!
    const [own] = statFields(process.pid).slice(2, 3)
    const [theirs] = statFields(pid).slice(2, 3)
    expect(theirs).not.toBe(own)
    expect(theirs).toBe(String(pid))
    await close()
    await eventually(() => !alive(pid))
    expect(logs.filter((line) => line.includes("restarting"))).toEqual([])
  })
})
