import { Clock, Effect } from "effect"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import { Ids } from "../../ids/Ids.js"
import { Threads } from "../../threads/Threads.js"
import type { Claims } from "./Claims.js"
import type { MemoryModelCall } from "./MemoryModelCall.js"
import { ObservationStore, type RecordKey } from "./ObservationStore.js"
import { cleanObservations, formatConversation, observerInstructions, observerPrompt } from "./ObserverPrompt.js"
import { dayOf, timeOf } from "./OwnerTime.js"
import { renderLog } from "./RenderLog.js"
import * as Tokens from "./Tokens.js"

/**
 * One observer call takes the pending messages up to three times `messageTokens`, and at least
 * 8,000 tokens of them: what is pending when the threshold is crossed, bounded.
 */
const batchFactor = 3
const minBatchTokens = 8_000

/** Most tokens of the existing log shown to the observer (to avoid repeats): its newest part. */
const maxExistingTokens = 4_000

/**
 * One observer call under the record's claim: the oldest unobserved messages (one thread's,
 * up to three times `messageTokens` of them, at least 8,000 tokens), condensed into dated observations and committed with
 * compare-and-set. Messages leave the model's context only once that commit landed.
 */
export const make = (claims: Claims, call: MemoryModelCall) =>
  Effect.gen(function* () {
    const store = yield* ObservationStore
    const threads = yield* Threads
    const ids = yield* Ids

    const observe = (key: RecordKey, config: AppConfigDocument) =>
      claims.withClaim(key, "observing", (token) =>
        Effect.gen(function* () {
          // Everything pending when the threshold is crossed (a turn or two past it), bounded.
          const batchTokens = Math.max(batchFactor * config.memory.observationalMemory.messageTokens, minBatchTokens)
          const pending = yield* store.pendingEntries(key, batchTokens)
          const first = pending[0]
          if (first === undefined) return "skipped" as const
          // One thread per call: each observation knows the messages (and thread) it came from.
          const entries = pending.filter((entry) => entry.threadId === first.threadId)
          const createdAt = new Map(entries.map((entry) => [entry.messageId, entry.createdAt]))
          const stored = yield* threads
            .messages(first.threadId)
            .pipe(Effect.catchTag("ThreadNotFound", () => Effect.succeed([])))
          const timeZone = config.timezone
          const messages = stored.flatMap((message) => {
            const at = createdAt.get(message.id)
            return at === undefined
              ? []
              : [{ role: message.role, parts: message.parts, day: dayOf(at, timeZone), time: timeOf(at, timeZone) }]
          })
          const now = new Date(yield* Clock.currentTimeMillis)
          let content = ""
          if (messages.length > 0) {
            const title = yield* threads.get(first.threadId).pipe(
              Effect.map((thread) => thread.title),
              Effect.orElseSucceed(() => null),
            )
            const existing = renderLog(yield* store.activeLog(key))
            const recent =
              existing === null
                ? null
                : Tokens.ofText(existing) > maxExistingTokens
                  ? existing.slice(-16_000)
                  : existing
            const answer = yield* call(config, {
              system: observerInstructions,
              prompt: observerPrompt(recent, formatConversation(title, messages)),
              temperature: 0.3,
            })
            content = cleanObservations(answer, messages.at(-1)?.day ?? dayOf(now, timeZone))
          }
          // The ledger's messages whose thread is gone are committed as observed with nothing
          // to say: they are forgotten, never fed to the model.
          const committed = yield* store.commitObservation(key, token, {
            id: yield* ids.uuid,
            threadId: first.threadId,
            messageIds: entries.map((entry) => entry.messageId),
            content,
            tokens: Tokens.ofText(content),
            createdAt: now,
          })
          if (committed._tag === "None") yield* Effect.logWarning("memory: the observer lost its claim; discarded")
          return "done" as const
        }).pipe(Effect.catchTag("MemoryBudgetSpent", () => Effect.succeed("skipped" as const))),
      )

    return { observe } as const
  })
