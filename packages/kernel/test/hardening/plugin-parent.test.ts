import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { alive, cleanup, eventually, toolsModule, writePlugin } from "./plugin-support.js"

/**
 * Issue 20 finding 5 and issue 24 item 12, with a real parent process standing in for the
 * server (fixtures/plugin-parent.ts) and a plugin process busy in a synchronous loop.
 */

afterAll(cleanup)
const root = fileURLToPath(new URL("../../../../", import.meta.url))
const parentScript = fileURLToPath(new URL("./fixtures/plugin-parent.ts", import.meta.url))
const busy = writePlugin({ "tools.mjs": toolsModule({ spin: "for (;;) {}" }) })
const parents: Array<ChildProcess> = []
afterEach(() => {
  for (const parent of parents.splice(0)) parent.kill("SIGKILL")
})

const startParent = async (detached: boolean) => {
  const parent = spawn(process.execPath, ["--import", "tsx", parentScript, busy], {
    cwd: root,
    detached,
    stdio: ["ignore", "pipe", "inherit"],
  })
  parents.push(parent)
  const lines = createInterface({ input: parent.stdout! })[Symbol.asyncIterator]()
  const next = async () => JSON.parse(String((await lines.next()).value))
  const { tree } = (await next()) as { tree: Array<number> }
  return { parent, tree, next }
}

const cpuTicks = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return Number(fields[11]) + Number(fields[12])
}

describe("death with the parent (finding 5)", () => {
  it("a plugin process busy in a loop dies when the server is killed with SIGKILL", async () => {
    const { parent, tree } = await startParent(false)
    const node = tree.at(-1)!
    expect(tree.length).toBeGreaterThanOrEqual(1)
    // Busy for real: it burns CPU in its loop.
    await eventually(() => cpuTicks(node) > 20)
    parent.kill("SIGKILL")
    await eventually(() => tree.every((pid) => !alive(pid)))
  })
})

describe("Ctrl-C in the terminal (issue 24, item 12)", () => {
  it("reaches the server only: the server stops its plugins, with no restart in the log", async () => {
    const { parent, tree, next } = await startParent(true)
    await eventually(() => cpuTicks(tree.at(-1)!) > 5)
    // What a terminal does on Ctrl-C: SIGINT to the foreground process group.
    process.kill(-parent.pid!, "SIGINT")
    const { logs } = (await next()) as { logs: Array<string> }
    expect(logs.filter((line) => /restarting|SIGINT/.test(line))).toEqual([])
    await eventually(() => tree.every((pid) => !alive(pid)))
  })
})
