import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Lookup } from "../../src/net/Hosts.js"
import type { Send } from "../../src/net/PinnedSend.js"
import type { PluginProcess } from "../../src/plugins/sandbox/PluginProcess.js"
import { call, callFails, closeAll, fixture, startPlugin } from "./sandbox-support.js"

/**
 * The escape corpus (docs/plugin-sandbox.md): each case is a tool of fixtures/escape trying one
 * way out, and each must fail with an error that says why.
 */

// Names under example.com stand for public hosts; the broker sees the addresses given here.
const lookup: Lookup = async (host) => {
  const answers: Record<string, string> = {
    "public.example.com": "93.184.216.34",
    "hop.example.com": "93.184.216.35",
    "private.example.com": "10.1.2.3",
    "v6loop.example.com": "::1",
    "mapped.example.com": "::ffff:169.254.169.254",
  }
  const answer = answers[host]
  if (answer === undefined) throw new Error(`ENOTFOUND ${host}`)
  return [answer]
}
const sent: Array<string> = []
// Stands in for the internet: never a real connection.
const send: Send = async (target) => {
  sent.push(`${target.address} ${target.url.pathname}`)
  if (target.url.pathname === "/redirect") {
    return new Response(null, { status: 302, headers: { location: "https://hop.example.com/next" } })
  }
  if (target.url.pathname === "/next") {
    return new Response(null, { status: 302, headers: { location: "https://private.example.com/secret" } })
  }
  return new Response("hello from the internet", { status: 200 })
}

let bare: PluginProcess
let granted: PluginProcess
let dir: string
beforeAll(async () => {
  // allowed/ holds a file and a symlink out to allowed-evil/; allowed-evil shares its prefix.
  dir = mkdtempSync(path.join(tmpdir(), "aide-sandbox-fs-"))
  mkdirSync(path.join(dir, "allowed"))
  mkdirSync(path.join(dir, "allowed-evil"))
  writeFileSync(path.join(dir, "allowed", "notes.txt"), "readable")
  writeFileSync(path.join(dir, "allowed-evil", "secret.txt"), "not yours")
  symlinkSync(path.join(dir, "allowed-evil", "secret.txt"), path.join(dir, "allowed", "link.txt"))
  ;[bare, granted] = await Promise.all([
    startPlugin({ pluginId: "escape" }),
    startPlugin({
      pluginId: "escape",
      permissions: { network: ["*.example.com", "100.100.100.200"], fs: [path.join(dir, "allowed")], time: true },
      egress: { lookup, send },
    }),
  ])
})
afterAll(async () => {
  await closeAll()
  rmSync(dir, { recursive: true, force: true })
})

describe("the escape corpus: no way out of a compartment", () => {
  it.each([
    ["process", /Cannot read properties of undefined \(reading 'env'\)/],
    ["require", /require is not a function/],
    ["import-fs", /import of "fs" refused: a sandboxed plugin may only import its own files/],
    ["function-constructor", /not a valid constructor|Function\.prototype\.constructor/],
    ["async-function-constructor", /not a valid constructor|constructor/],
    ["array-prototype", /Cannot assign to read only property 'includes'/],
    ["object-prototype", /Cannot add property polluted, object is not extensible/],
    ["date-now", /secure mode Calling %SharedDate%\.now\(\) throws/],
    ["new-date", /secure mode Calling new %SharedDate%\(\) with no arguments throws/],
    ["math-random", /secure mode %SharedMath%\.random\(\) throws/],
    ["global-fetch", /fetch is not a function/],
    ["context-fetch", /no fetch in the context/],
    ["read", /no fs/],
  ])("%s", async (toolId, reason) => {
    const error = await callFails(bare, toolId)
    expect(error).toMatchObject({ _tag: "PluginCallError", reason: "failed" })
    expect(error.message).toMatch(reason)
  })

  it("shared objects stay untouched after a tampering attempt", async () => {
    await callFails(bare, "object-prototype")
    expect(await call(bare, "ok")).toBe("ok")
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it("Date and Math.random work only when granted", async () => {
    expect(await call(granted, "now-granted")).toBe("number")
    expect((await callFails(bare, "now-granted")).message).toMatch(/%SharedDate%\.now\(\) throws/)
  })
})

describe("another plugin's secrets", () => {
  it("a second plugin's env var is not visible", async () => {
    const other = await startPlugin({ pluginId: "secret", env: { OTHER_SECRET: "s3cr3t" } })
    expect(await call(other, "peek")).toEqual({ OTHER_SECRET: "s3cr3t" })
    const error = await callFails(bare, "process")
    expect(error.message).not.toMatch(/s3cr3t/)
    expect(await call(bare, "ok")).toBe("ok")
  })

  it("the other plugin's folder cannot be read, even with fs granted elsewhere", async () => {
    const error = await callFails(granted, "read", { path: path.join(fixture("secret"), "secret.txt") })
    expect(error.message).toMatch(/outside the declared fs paths/)
  })
})

describe("the read-only fs endowment", () => {
  it("reads a file under a declared path", async () => {
    expect(await call(granted, "read", { path: path.join(dir, "allowed", "notes.txt") })).toBe("readable")
  })

  it("a symlink out of the declared folder is judged by where it leads", async () => {
    const error = await callFails(granted, "read", { path: path.join(dir, "allowed", "link.txt") })
    expect(error.message).toMatch(/outside the declared fs paths/)
  })

  it("/allowed-evil is not under /allowed", async () => {
    const error = await callFails(granted, "read", { path: path.join(dir, "allowed-evil", "secret.txt") })
    expect(error.message).toMatch(/outside the declared fs paths/)
  })

  it("relative paths and .. tricks are refused", async () => {
    expect((await callFails(granted, "read", { path: "notes.txt" })).message).toMatch(/must be absolute/)
    const dotted = path.join(dir, "allowed", "..", "allowed-evil", "secret.txt")
    expect((await callFails(granted, "read", { path: dotted })).message).toMatch(/outside the declared fs paths/)
  })
})

describe("SSRF through the brokered fetch", () => {
  it("a declared public host is reached through the host's broker", async () => {
    expect(await call(granted, "context-fetch", { url: "https://public.example.com/ok" })).toEqual({
      status: 200,
      url: "https://public.example.com/ok",
      body: "hello from the internet",
    })
  })

  it.each([
    ["https://[::1]/", /host \[::1\] is not declared|not declared/],
    ["https://[::ffff:169.254.169.254]/", /not declared/],
    ["https://localhost./", /not declared/],
    ["https://100.100.100.200/latest/meta-data", /metadata endpoint/],
    ["https://v6loop.example.com/", /loopback address/],
    ["https://mapped.example.com/", /metadata endpoint/],
    ["https://private.example.com/", /private address/],
    ["http://public.example.com/", /only https is allowed/],
  ])("%s is refused", async (url, reason) => {
    const error = await callFails(granted, "context-fetch", { url })
    expect(error.message).toMatch(reason)
  })

  it("a redirect chain from public hosts to a private address is refused at the private hop", async () => {
    sent.length = 0
    const error = await callFails(granted, "context-fetch", { url: "https://public.example.com/redirect" })
    expect(error.message).toMatch(/Refused https:\/\/private\.example\.com\/secret: private address/)
    expect(sent).toEqual(["93.184.216.34 /redirect", "93.184.216.35 /next"])
  })
})

describe("under SES, Node's permission model (defence in depth)", () => {
  it("a compartment process can read its plugin folder but nothing else, nor start processes", async () => {
    const { execFile } = await import("node:child_process")
    const { execArgv } = await import("../../src/plugins/sandbox/Supervised.js")
    const flags = await execArgv({
      options: {
        pluginId: "escape",
        directory: fixture("escape"),
        trust: "compartment",
        entries: { tools: [], agents: [], channels: [] },
        permissions: { fs: [path.join(dir, "allowed")] },
        env: {},
        config: {},
      },
      limits: { memoryMb: 64, callTimeoutMs: 1_000, outputBytes: 1024, startTimeoutMs: 1_000 },
    })
    const probe = `
      const fs = require("node:fs")
      const tryIt = (f) => { try { f(); return "allowed" } catch (e) { return e.code } }
      console.log(JSON.stringify({
        own: tryIt(() => fs.readFileSync(${JSON.stringify(path.join(fixture("escape"), "tools.mjs"))})),
        granted: tryIt(() => fs.readFileSync(${JSON.stringify(path.join(dir, "allowed", "notes.txt"))})),
        other: tryIt(() => fs.readFileSync(${JSON.stringify(path.join(fixture("secret"), "secret.txt"))})),
        evil: tryIt(() => fs.readFileSync(${JSON.stringify(path.join(dir, "allowed-evil", "secret.txt"))})),
        write: tryIt(() => fs.writeFileSync(${JSON.stringify(path.join(dir, "allowed", "new.txt"))}, "x")),
        spawn: tryIt(() => require("node:child_process").execFileSync("true")),
      }))`
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [...flags, "-e", probe], { env: {} }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    )
    expect(JSON.parse(output)).toEqual({
      own: "allowed",
      granted: "allowed",
      other: "ERR_ACCESS_DENIED",
      evil: "ERR_ACCESS_DENIED",
      write: "ERR_ACCESS_DENIED",
      spawn: "ERR_ACCESS_DENIED",
    })
  })
})
