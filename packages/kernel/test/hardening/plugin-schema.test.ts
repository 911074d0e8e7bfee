import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { definitionOf } from "../../src/plugins/loader/PluginToolSource.js"
import type { PluginProcess } from "../../src/plugins/sandbox/PluginProcess.js"
import type { ToolExecutionError } from "../../src/tools/ToolRegistry.js"
import { closeAll, startPlugin } from "../plugins/sandbox-support.js"

/**
 * Issue 20, finding 2: a plugin tool's JSON Schema is checked in the plugin's process. A schema
 * that backtracks or runs in quadratic time costs that plugin's call (it times out), while the
 * host's event loop keeps turning; the host itself checks only the input's shape and size.
 */

afterAll(closeAll)

const directory = mkdtempSync(join(tmpdir(), "aide-schema-"))
mkdirSync(directory, { recursive: true })
writeFileSync(
  join(directory, "tools.mjs"),
  `
const tool = (id, parameters) => ({ id, name: id, description: id, parameters, execute: () => "ran" })
export default [
  tool("redos", { type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } }),
  tool("url", { type: "object", properties: { link: { type: "string", format: "url" } } }),
  tool("unique", { type: "object", properties: { items: { type: "array", uniqueItems: true } } }),
  tool("strict", { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }),
]
`,
)

const start = () =>
  startPlugin({
    pluginId: "schemas",
    directory,
    limits: { callTimeoutMs: 1_000, startTimeoutMs: 10_000 },
    backoff: { initialMs: 100, maxMs: 500 },
  })

const toolOf = async (process: PluginProcess, id: string) => {
  const tool = (await Effect.runPromise(process.description)).tools.find((found) => found.id === id)
  if (tool === undefined) throw new Error(`no tool ${id}`)
  return definitionOf({ tool, process, requireApproval: false })
}

/** Runs the tool; resolves with its outcome. `turns` counts the host's timer ticks meanwhile. */
const run = async (process: PluginProcess, id: string, input: unknown) => {
  const tool = await toolOf(process, id)
  let turns = 0
  const ticker = setInterval(() => turns++, 20)
  const result = await Effect.runPromise(Effect.either(tool.execute(input, {} as never)))
  clearInterval(ticker)
  return { result, turns }
}

const errorOf = (result: Either.Either<unknown, ToolExecutionError>) => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left.message
}

describe("schemas that cost time run in the plugin's process", () => {
  it.each([
    ["redos", { text: `${"a".repeat(32)}!` }],
    ["url", { link: `http://${"a".repeat(40)}` }],
    ["unique", { items: Array.from({ length: 64_000 }, (_, index) => index) }],
  ])("%s: the call times out in the plugin, the host's loop keeps turning", async (id, input) => {
    const process = await start()
    const { result, turns } = await run(process, id, input)
    expect(errorOf(result)).toBe(`plugin schemas: tool.call timed out after 1000 ms`)
    // The host's timers ran while the plugin was busy: the schema never held its event loop.
    expect(turns).toBeGreaterThan(5)
  })
})

describe("input checks", () => {
  it("a wrong input is refused by the plugin's process with the field named; the tool does not run", async () => {
    const process = await start()
    const { result } = await run(process, "strict", { n: "one" })
    expect(errorOf(result)).toMatch(/^plugin schemas: invalid input: input\/n: /)
    const { result: good } = await run(process, "strict", { n: 1 })
    expect(good).toEqual(Either.right("ran"))
  })

  it("the host refuses what is not an object, or too deep, or too large, before the plugin sees it", async () => {
    const process = await start()
    let deep: unknown = 1
    for (let level = 0; level < 100_000; level++) deep = { a: deep }
    expect(errorOf((await run(process, "strict", [1])).result)).toBe("invalid input: input: must be an object")
    expect(errorOf((await run(process, "strict", { deep })).result)).toBe(
      "invalid input: input: nested deeper than 64 levels",
    )
    expect(errorOf((await run(process, "strict", { text: "x".repeat(2 * 1024 * 1024) })).result)).toBe(
      "invalid input: input: larger than 1048576 bytes",
    )
  })
})
