import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The long process-level files, slowest first (from the summary table `.ci/run` prints). Most of
 * their time is spent waiting (on a spawned server, a build, Chromium, a checkpoint), so started
 * first they overlap with the short files; started last, as a fresh clone's order (largest file
 * first) often had them, each one ends the run alone.
 */
const longFirst = [
  // Two to four minutes, nearly all of it npm installing and unpacking in child processes.
  "packages/cli/test/registry.test.ts",
  "packages/console/test/console.e2e.test.ts",
  "packages/console/test/phone-a11y.e2e.test.ts",
  "packages/server/test/hardening/partial-answers.test.ts",
  "packages/server/test/docs-commands.test.ts",
  "packages/server/test/crash.test.ts",
  "packages/cli/test/start.test.ts",
  "packages/cli/test/plugin-dev.test.ts",
  "packages/cli/test/chat-terminal.test.ts",
]

const rank = (spec: TestSpecification) => {
  const index = longFirst.indexOf(relative(process.cwd(), spec.moduleId))
  return index === -1 ? longFirst.length : index
}

/** vitest's order (failed, then slowest last time, else largest first), with the long files ahead. */
export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    return sorted
      .map((spec, order) => ({ spec, order, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ spec }) => spec)
  }
}
