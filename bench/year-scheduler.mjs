// The scheduler's due-check pass on a data directory (bench/year.mjs), in-process through the
// built kernel with the server stopped: `DueRunner.runDue` (the same pass as the firing loop's
// step and `ManualScheduler.runDue`: the ledger's state, every task's next due time, a claim for
// what is due) with the directory's 200 tasks. The first passes are warm-up (and fire whatever
// fell due since the seed: no model is configured there, so such a run fails at once); the
// figures are the passes after, which find nothing due.

import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { importFrom, percentile, root } from "./harness.mjs"
import { kernelLayer } from "./year-seed.mjs"

const { DueRunner, AppConfig } = await import(pathToFileURL(path.join(root, "packages/kernel/dist/index.js")).href)
const { Effect, Layer, ManagedRuntime } = await importFrom("kernel", "effect")

/** `tasks`: put into the config first when the directory has none (the empty directory). */
export const schedulerPassTimes = async (dataDir, samples, databaseUrl, tasks) => {
  // The firing loop off, as DueRunner asks: the passes measured are the only ones.
  const kernel = await kernelLayer(dataDir, databaseUrl, { scheduler: { enabled: false } })
  const runtime = ManagedRuntime.make(Layer.provideMerge(DueRunner.layer(), kernel))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const config = yield* AppConfig.AppConfig
        const present = (yield* config.get).schedule.tasks.length
        if (present === 0 && tasks !== undefined) yield* config.patch({ schedule: { tasks } })
        const runner = yield* DueRunner.DueRunner
        let warmFired = 0
        for (let n = 0; n < 3; n++) warmFired += (yield* runner.runDue).fired
        const times = []
        let fired = 0
        for (let n = 0; n < samples; n++) {
          const t0 = performance.now()
          fired += (yield* runner.runDue).fired
          times.push(performance.now() - t0)
        }
        const count = (yield* config.get).schedule.tasks.length
        return {
          p50: percentile(times, 50),
          p95: percentile(times, 95),
          n: times.length,
          tasks: count,
          fired,
          warmFired,
        }
      }),
    )
  } finally {
    await runtime.dispose()
  }
}
