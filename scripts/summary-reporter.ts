import { relative } from "node:path"
import type { Reporter, TestModule } from "vitest/node"

/** How many of the slowest test files the summary names: enough to see the next regression the day it lands. */
const slowestShown = 15

interface FileTime {
  readonly file: string
  /** Importing the file and what it imports, setup files and the environment included. */
  readonly importMs: number
  /** Its tests and hooks. */
  readonly testsMs: number
}

const fileTime = (module: TestModule): FileTime => {
  const d = module.diagnostic()
  return {
    file: relative(process.cwd(), module.moduleId),
    importMs: d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration,
    testsMs: d.duration,
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8)

const slowestTable = (times: ReadonlyArray<FileTime>) => {
  const slowest = [...times].sort((a, b) => b.importMs + b.testsMs - (a.importMs + a.testsMs)).slice(0, slowestShown)
  const lines = slowest.map(
    (t) =>
      `${seconds(t.importMs + t.testsMs)}  (import ${seconds(t.importMs).trim()}, tests ${seconds(t.testsMs).trim()})  ${t.file}`,
  )
  return `\nslowest test files (of ${times.length}):\n${lines.join("\n")}\n`
}

/**
 * Prints the slowest test files with where their time went (import vs tests), then one plain
 * closing line, `tests: N passed, N failed, N skipped`, that any CI can read regardless of
 * vitest's own formatting.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
      // A file that failed outside its tests (an import, a hook) counts as one failure.
      if (
        module.state() === "failed" &&
        ![...module.children.allTests()].some((test) => test.result().state === "failed")
      ) {
        failed++
      }
    }
    const table = modules.length > 1 ? slowestTable(modules.map(fileTime)) : ""
    // After vitest's own summary, so that it is the run's closing line.
    process.once("exit", () => {
      process.stdout.write(`${table}\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
    })
  }
}
