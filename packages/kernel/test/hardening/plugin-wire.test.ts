import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Frames from "../../src/plugins/sandbox/Frames.js"
import { call, callFails, closeAll, eventually, startPlugin } from "../plugins/sandbox-support.js"

/**
 * Issue 20, findings 1 and 7: whatever a plugin process sends, the host reads it totally. A
 * failure of any shape ends the call as a tool error (or restarts the process); the host — this
 * test process — never throws. The hostile plugins are written here, then run as real processes.
 */

afterAll(closeAll)

const root = mkdtempSync(join(tmpdir(), "aide-wire-"))
const backoff = { initialMs: 100, maxMs: 500 }

const plugin = (name: string, source: string) => {
  const directory = join(root, name)
  mkdirSync(directory, { recursive: true })
  writeFileSync(join(directory, "tools.mjs"), source)
  return directory
}

const toolsOf = (body: string) => `
const tool = (id, execute) => ({ id, name: id, description: id, parameters: { type: "object" }, execute })
${body}
`

// Compartment code: no `process`, no imports; only what SES leaves it.
const hostileErrors = plugin(
  "hostile-errors",
  toolsOf(`
const deep = (depth) => { let value = []; for (let i = 0; i < depth; i++) value = [value]; return value }
export default [
  tool("ok", () => "ok"),
  // The probe of finding 1: a message object with its own slice(), answering a 4,000-deep array.
  tool("slice", () => { const error = new Error("x"); error.message = { slice: () => deep(4000) }; throw error }),
  // A 60 MB message through the same door.
  tool("huge", () => { const error = new Error("x"); error.message = { slice: () => "y".repeat(60 * 1024 * 1024) }; throw error }),
  tool("getter", () => { const error = new Error("x"); Object.defineProperty(error, "message", { get() { throw deep(10) } }); throw error }),
  tool("proxy", () => { throw new Proxy(new Error("x"), { getPrototypeOf() { throw new Error("trap") }, get() { throw new Error("trap") } }) }),
  tool("object", () => { throw { message: deep(4000), toString() { return deep(4000) } } }),
  tool("long", () => { throw new Error("z".repeat(100_000)) }),
  tool("log", (input, context) => { context.log({ toString() { return deep(4000) } }, deep(4000)); return "logged" }),
]
`),
)

// Host trust reaches fd 3 itself: it can write any bytes, so the host's reader is what holds.
const rawFrames = plugin(
  "raw-frames",
  `import { writeSync } from "node:fs"
const tool = (id, execute) => ({ id, name: id, description: id, parameters: { type: "object" }, execute })
const frame = (text) => {
  const body = Buffer.from(text, "utf8")
  const header = Buffer.alloc(4)
  header.writeUInt32BE(body.length, 0)
  return Buffer.concat([header, body])
}
const deep = (depth) => "[".repeat(depth) + "]".repeat(depth)
const pending = () => new Promise(() => {})
export default [
  tool("ok", () => "ok"),
  // An error response for the call in flight (host ids are h1, h2…), its message a 4,000-deep array.
  tool("deep-error", () => { for (let n = 1; n < 50; n++) writeSync(3, frame('{"kind":"response","id":"h' + n + '","ok":false,"error":{"message":' + deep(4000) + '}}')); return pending() }),
  tool("deep-log", () => { writeSync(3, frame('{"kind":"log","level":{"toString":1},"message":' + deep(4000) + ',"data":' + deep(4000) + '}')); return "logged" }),
  tool("not-json", () => { writeSync(3, frame("{ nope")); return pending() }),
  tool("empty", () => { writeSync(3, Buffer.alloc(4)); return pending() }),
  // The header of a 60 MB message, then its first megabyte: refused before the rest is read.
  tool("oversize", () => { const header = Buffer.alloc(4); header.writeUInt32BE(60 * 1024 * 1024, 0); writeSync(3, header); writeSync(3, Buffer.alloc(1024 * 1024, 32)); return pending() }),
  tool("deep-request", () => {
    writeSync(3, frame('{"kind":"request","id":"x1","method":"probe","params":{"deep":' + deep(20000) + '}}'))
    writeSync(3, frame('{"kind":"request","id":"x2","method":"probe","params":{"shallow":true}}'))
    return "sent"
  }),
  tool("bad-id", () => { writeSync(3, frame('{"kind":"response","id":{"x":1},"ok":true}')); return pending() }),
]
`,
)

describe("a compartment plugin's hostile errors are tool errors, never a host exception", () => {
  it.each([
    ["slice", /^plugin hostile-errors: an error whose message is not text$/],
    ["huge", /^plugin hostile-errors: an error whose message is not text$/],
    ["getter", /^plugin hostile-errors: an error that could not be read$/],
    ["proxy", /^plugin hostile-errors: (an error that could not be read|unknown error)$/],
    ["object", /^plugin hostile-errors: unknown error$/],
  ])("%s", async (toolId, message) => {
    const process = await startPlugin({ pluginId: "hostile-errors", directory: hostileErrors, backoff })
    const error = await callFails(process, toolId)
    expect(error).toMatchObject({ _tag: "PluginCallError", reason: "failed" })
    expect(error.message).toMatch(message)
    // The same process answers the next call: an error is not a crash.
    expect(await call(process, "ok")).toBe("ok")
  })

  it("a long message is cut to 4,096 characters by the runner", async () => {
    const process = await startPlugin({ pluginId: "hostile-errors", directory: hostileErrors, backoff })
    const error = await callFails(process, "long")
    expect(error.message).toBe(`plugin hostile-errors: ${"z".repeat(4096)}`)
  })

  it("a log line whose message and data are hostile objects is logged as the host's words", async () => {
    const process = await startPlugin({ pluginId: "hostile-errors", directory: hostileErrors, backoff })
    expect(await call(process, "log")).toBe("logged")
  })
})

describe("the frame reader", () => {
  it("gives the same messages however the bytes are cut: whole, byte by byte, or across headers", () => {
    const messages = [{ kind: "log", message: "é".repeat(300) }, { id: "c1" }, { text: "x".repeat(70_000) }, { n: 1 }]
    const bytes = Buffer.concat(messages.map((message) => Frames.encode(message)))
    for (const size of [bytes.length, 1, 3, 5, 4096, 65_536]) {
      const seen: Array<unknown> = []
      const reader = Frames.reader(
        1024 * 1024,
        (text) => seen.push(JSON.parse(text)),
        (reason) => seen.push(reason),
      )
      for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size))
      expect(seen).toEqual(messages)
    }
  })
})

describe("raw frames from a host plugin are refused by the host's reader", () => {
  it.each([
    ["not-json", /sent a message that is not JSON/],
    ["empty", /sent an empty message/],
    ["oversize", /sent a message of 62914560 bytes \(limit \d+\); refused before reading it/],
    ["bad-id", /sent a message without a valid id/],
  ])("%s: the call is a protocol error and the plugin restarts", async (toolId, message) => {
    const process = await startPlugin({ pluginId: "raw-frames", directory: rawFrames, trust: "host", backoff })
    const error = await callFails(process, toolId)
    expect(error.reason).toBe("protocol")
    expect(error.message).toMatch(message)
    await eventually(async () => Either.isRight(await Effect.runPromise(Effect.either(process.callTool("ok", {})))))
  })

  it("an error response whose message is a 4,000-deep array ends the call with the host's words", async () => {
    const process = await startPlugin({ pluginId: "raw-frames", directory: rawFrames, trust: "host", backoff })
    const error = await callFails(process, "deep-error")
    expect(error.reason).toBe("failed")
    expect(error.message).toBe("plugin raw-frames: the plugin failed without a text message")
  })

  it("a request whose params nest 20,000 deep is refused before any handler sees it", async () => {
    const seen: Array<unknown> = []
    const process = await startPlugin({
      pluginId: "raw-frames",
      directory: rawFrames,
      trust: "host",
      onRequest: (method, params) => Effect.sync(() => seen.push([method, params])),
    })
    expect(await call(process, "deep-request")).toBe("sent")
    await eventually(async () => seen.length > 0)
    expect(seen).toEqual([["probe", { shallow: true }]])
  })

  it("a log frame of deep values is logged without them", async () => {
    const process = await startPlugin({ pluginId: "raw-frames", directory: rawFrames, trust: "host", backoff })
    expect(await call(process, "deep-log")).toBe("logged")
    expect(await call(process, "ok")).toBe("ok")
  })
})

// Finding 7's second half: brokered fetch bodies are bounded while they stream, both ways.
const fetcher = plugin(
  "big-fetch",
  toolsOf(`
const attempt = async (run) => { try { return await run() } catch (error) { return "refused: " + error.message } }
export default [
  tool("ok", () => "ok"),
  tool("post", (input, context) =>
    attempt(async () => (await context.fetch("https://public.example.com/in", { method: "POST", body: "x".repeat(input.bytes) })).status)),
  tool("burst", async (input, context) => {
    const settled = await Promise.allSettled(Array.from({ length: 200 }, () => context.fetch("https://public.example.com/slow")))
    const refused = {}
    for (const one of settled) if (one.status === "rejected") refused[one.reason.message] = (refused[one.reason.message] ?? 0) + 1
    return { ok: settled.filter((one) => one.status === "fulfilled").length, refused }
  }),
  tool("get", (input, context) =>
    attempt(async () => (await (await context.fetch("https://public.example.com/out")).arrayBuffer()).byteLength)),
]
`),
)

describe("brokered fetch bodies", () => {
  const received: Array<number> = []
  const start = () =>
    startPlugin({
      pluginId: "big-fetch",
      directory: fetcher,
      permissions: { network: ["public.example.com"] },
      limits: { callTimeoutMs: 20_000 },
      egress: {
        lookup: async () => ["93.184.216.34"],
        send: async (target, hop) => {
          if (target.url.pathname === "/in") {
            received.push(hop.body?.byteLength ?? 0)
            return new Response("ok", { status: 201 })
          }
          if (target.url.pathname === "/slow") {
            await new Promise((resolve) => setTimeout(resolve, 200))
            return new Response("slow", { status: 200 })
          }
          // An endless body: only a reader that stops at its limit gets to the end of this call.
          let sentBytes = 0
          const chunk = new Uint8Array(1024 * 1024)
          const body = new ReadableStream<Uint8Array>({
            pull(controller) {
              sentBytes += chunk.length
              if (sentBytes > 1024 * 1024 * 1024) return controller.close()
              controller.enqueue(chunk)
            },
          })
          return new Response(body, { status: 200 })
        },
      },
    })

  it("a request body larger than one wire message is refused in the plugin's process; the host never reads it", async () => {
    const process = await start()
    expect(await call(process, "post", { bytes: 20 * 1024 * 1024 })).toBe(
      "refused: fetch refused: a request body of 20971520 bytes is larger than the wire takes",
    )
    expect(received).toEqual([])
    expect(await call(process, "post", { bytes: 1000 })).toBe(201)
    expect(received).toEqual([1000])
  })

  it("a burst of 200 fetches: the wire takes 64, the broker sends 8 of them and refuses the rest", async () => {
    const process = await start()
    // The broker's own bounds: plugin-fetch-flood.test.ts.
    expect(await call(process, "burst")).toEqual({
      ok: 8,
      refused: {
        "fetch refused: more than 8 fetches in flight": 56,
        "fetch refused: more than 64 requests in flight": 136,
      },
    })
  })

  it("an endless response body is cut at Egress's limit while it streams", async () => {
    const process = await start()
    expect(await call(process, "get")).toMatch(/^refused: .*exceeds 10485760 bytes$/)
    expect(await call(process, "ok")).toBe("ok")
  })
})

describe("a tool schema that would go into every model request", () => {
  const deepSchema = plugin(
    "deep-schema",
    toolsOf(`
let deep = { type: "object" }
for (let i = 0; i < 200; i++) deep = { type: "object", properties: { a: deep } }
export default [tool("ok", () => "ok"), { ...tool("deep", () => "never"), parameters: deep }]
`),
  )

  it("is left out with an error alert when it nests past 64 levels; the plugin's other tools load", async () => {
    const process = await startPlugin({ pluginId: "deep-schema", directory: deepSchema })
    const description = await Effect.runPromise(process.description)
    expect(description.tools.map((tool) => tool.id)).toEqual(["ok"])
    expect(description.alerts).toContainEqual({
      level: "error",
      message: "tools.mjs: tool deep: its parameters schema nests deeper than 64 levels",
    })
    expect(await call(process, "ok")).toBe("ok")
  })
})

describe("an init answer forged by a host plugin", () => {
  it.each([
    ["a 20,000-deep alert", `{"tools":[],"agents":[],"channels":[],"alerts":[{"level":"info","message":DEEP}]}`],
    [
      "a 20,000-deep tool field",
      `{"tools":[{"entry":"x","id":DEEP,"name":"x","description":"","parameters":{}}],"agents":[],"channels":[],"alerts":[]}`,
    ],
  ])("%s: the plugin does not start, with the host's words", async (_, answer) => {
    const directory = plugin(
      `forged-${answer.length}`,
      `import { writeSync } from "node:fs"
const deep = "[".repeat(20000) + "]".repeat(20000)
const body = Buffer.from('{"kind":"response","id":"h1","ok":true,"value":' + ${JSON.stringify(answer)}.replace("DEEP", deep) + "}")
const header = Buffer.alloc(4)
header.writeUInt32BE(body.length, 0)
writeSync(3, Buffer.concat([header, body]))
export default []
`,
    )
    const started = await startPlugin({ pluginId: "forged", directory, trust: "host" }).then(
      () => "started",
      (error: Error) => error.message,
    )
    expect(started).toMatch(
      /plugin forged did not start: init failed: the plugin's description nests deeper than 24 levels$/,
    )
  })
})
