import { defineConfig } from "vitest/config"
import LongFirstSequencer from "./scripts/test-sequencer.js"
import { projects } from "./vitest.workspace.js"

export default defineConfig({
  test: {
    projects,
    reporters: ["default", "./scripts/summary-reporter.ts"],
    // vitest's default is one worker fewer than the cores: one worker on a 2-core CI machine, which
    // then ran every file in turn while most of them wait (on a spawned server, a socket, Chromium).
    maxWorkers: Number(process.env.AIDE_TEST_WORKERS ?? 3),
    sequence: { sequencer: LongFirstSequencer },
    // The projects that share one module graph (vitest.workspace.ts) run in the threads pool, beside
    // the forks: one thread, which imports the modules once.
    poolOptions: { threads: { isolate: false, maxThreads: 1 } },
  },
})
