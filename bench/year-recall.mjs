// Recall on a data directory (bench/year.mjs), in-process through the built kernel with the
// server stopped: `Recall.forTurn` (what a chat turn waits for: full-text search, neighbours,
// the prompt section) over `samples` queries. Semantic recall is switched on for the run and the
// directory's previous memory settings are put back after.

import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { importFrom, percentile, root } from "./harness.mjs"
import { kernelLayer, sentence } from "./year-seed.mjs"

const { Recall, AppConfig } = await import(pathToFileURL(path.join(root, "packages/kernel/dist/index.js")).href)
const { Effect, ManagedRuntime } = await importFrom("kernel", "effect")

export const recallTimes = async (dataDir, samples, databaseUrl) => {
  const runtime = ManagedRuntime.make(await kernelLayer(dataDir, databaseUrl))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const config = yield* AppConfig.AppConfig
        const before = (yield* config.get).memory
        yield* config.patch({ memory: { enabled: true, semanticRecall: { enabled: true, topK: 4, messageRange: 1 } } })
        const recall = yield* Recall.Recall
        const times = []
        for (let n = 0; n < samples + 10; n++) {
          const text = sentence(n * 101 + 7, 10)
          const history = [{ id: `q-${n}`, role: "user", parts: [{ type: "text", text }] }]
          const t0 = performance.now()
          yield* recall.forTurn({ threadId: "year-recall-current", history })
          if (n >= 10) times.push(performance.now() - t0)
        }
        yield* config.patch({ memory: { enabled: before.enabled, semanticRecall: before.semanticRecall } })
        return { p50: percentile(times, 50), p95: percentile(times, 95), n: times.length }
      }),
    )
  } finally {
    await runtime.dispose()
  }
}
