import type { Reporter, TestModule } from "vitest/node"

/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, that any CI can read
 * regardless of vitest's own formatting.
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
    // After vitest's own summary, so that it is the run's closing line.
    process.once("exit", () => {
      process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
    })
  }
}
