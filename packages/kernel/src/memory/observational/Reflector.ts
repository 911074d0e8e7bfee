import { Clock, Effect } from "effect"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import type { Claims } from "./Claims.js"
import type { MemoryModelCall } from "./MemoryModelCall.js"
import { ObservationStore, type RecordKey } from "./ObservationStore.js"
import { reflectorInstructions, reflectorRetry } from "./ObserverPrompt.js"
import * as ReflectionCheck from "./ReflectionCheck.js"
import { renderLog } from "./RenderLog.js"
import * as Tokens from "./Tokens.js"

/** Attempts of one reflection: the second asks to compress harder. */
const attempts = 2

/**
 * One reflector call under the record's claim: the active log rewritten denser, as generation
 * `generationCount + 1`, committed only if the log is still the one read. A rewrite that is not
 * denser, repeats itself or drops too many high-priority lines is rejected and the log kept;
 * a reflection rejected on every attempt counts as a failure (the breaker stops retries).
 */
export const make = (claims: Claims, call: MemoryModelCall) =>
  Effect.gen(function* () {
    const store = yield* ObservationStore

    const reflect = (key: RecordKey, config: AppConfigDocument) =>
      claims.withClaim(key, "reflecting", (token) =>
        Effect.gen(function* () {
          const log = yield* store.activeLog(key)
          const before = renderLog(log)
          if (before === null) return "skipped" as const
          for (let attempt = 1; attempt <= attempts; attempt++) {
            const answer = yield* call(config, {
              system: attempt === 1 ? reflectorInstructions : `${reflectorInstructions}\n${reflectorRetry}`,
              prompt: `Observation log:\n${before}`,
              temperature: 0,
            })
            const after = answer.trim()
            const verdict = ReflectionCheck.check(before, after)
            if (!verdict.ok) {
              yield* Effect.logWarning("memory: a reflection was rejected; the log is kept").pipe(
                Effect.annotateLogs({ key, attempt, reason: verdict.reason }),
              )
              continue
            }
            const committed = yield* store.commitReflection(key, token, {
              generation: (log.reflection?.generation ?? 0) + 1,
              content: after,
              tokens: Tokens.ofText(after),
              absorbed: log.chunks.map((chunk) => chunk.id),
              createdAt: new Date(yield* Clock.currentTimeMillis),
            })
            if (!committed) yield* Effect.logInfo("memory: the log changed during reflection; it runs again later")
            return "done" as const
          }
          return "failed" as const
        }).pipe(Effect.catchTag("MemoryBudgetSpent", () => Effect.succeed("skipped" as const))),
      )

    return { reflect } as const
  })
