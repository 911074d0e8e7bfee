import { Clock, Effect, Option } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import { observationalMemoryOn } from "../../config/MemoryConfig.js"
import type { ThreadWindow } from "../../threads/Threads.js"
import * as ThreadWindows from "../../threads/ThreadWindow.js"
import type { ObservationalOptions } from "../Memory.js"
import type { MemoryRecordView } from "../MemoryRecord.js"
import * as Observational from "./Observational.js"
import { ObservationStore, type RecordRow } from "./ObservationStore.js"
import { renderLog } from "./RenderLog.js"

/**
 * The observational half of `Memory`: what the routes show (record, observations), what a run
 * reads (its context) and what it feeds (`afterTurn`), and forgetting deleted threads.
 */
export const make = (options: ObservationalOptions = {}) =>
  Effect.gen(function* () {
    const store = yield* ObservationStore
    const appConfig = yield* AppConfig
    const background = yield* Observational.make(options)
    const on = Effect.map(appConfig.get, (config) => observationalMemoryOn(config.memory))

    /** The record a request is about: the resource's, or a thread's (by default the latest). */
    const recordOf = (config: AppConfigDocument, threadId: string | undefined) =>
      config.memory.observationalMemory.scope === "resource" || threadId !== undefined
        ? Effect.map(
            background.ensureRecord(config, Observational.keyOf(config, threadId ?? "")),
            (record): Option.Option<RecordRow> => Option.some(record),
          )
        : store.latestThreadRecord

    const record = (threadId?: string) =>
      Effect.gen(function* () {
        const config = yield* appConfig.get
        if (!observationalMemoryOn(config.memory)) return { record: null, thresholds: null } satisfies MemoryRecordView
        const { scope, messageTokens, observationTokens } = config.memory.observationalMemory
        const thresholds = { scope, messageTokens, observationTokens }
        const found = yield* recordOf(config, threadId)
        if (Option.isNone(found)) return { record: null, thresholds }
        const row = found.value
        const now = yield* Clock.currentTimeMillis
        const running = row.claim !== null && row.claim.until.getTime() > now ? row.claim.kind : null
        return {
          record: {
            id: row.id,
            scope: row.scope,
            generationCount: row.generationCount,
            observationTokenCount: row.observationTokenCount,
            pendingMessageTokens: yield* store.pendingTokens(row.key),
            totalTokensObserved: row.totalTokensObserved,
            isObserving: running === "observing",
            isReflecting: running === "reflecting",
            lastObservedAt: row.lastObservedAt,
            updatedAt: row.updatedAt,
          },
          thresholds,
        } satisfies MemoryRecordView
      })

    const observations = (threadId?: string) =>
      Effect.gen(function* () {
        const config = yield* appConfig.get
        if (!observationalMemoryOn(config.memory)) return null
        const found = yield* recordOf(config, threadId)
        return Option.isNone(found) ? null : yield* background.renderActive(found.value.key)
      })

    /**
     * What a run of `threadId` sends: the observations, and the history without the messages
     * they cover (the longest observed head; the newest message always stays). Only what is
     * sent is read: the window's tail when every older message is observed.
     */
    const contextFor = (threadId: string, history: ThreadWindow) =>
      Effect.gen(function* () {
        const config = yield* appConfig.get
        if (!observationalMemoryOn(config.memory)) return { observations: null, history: yield* history.all }
        const key = Observational.keyOf(config, threadId)
        // The newest message always stays: a history of one (a new thread's first chat) drops
        // nothing, so which of its messages were observed need not be read.
        if (history.before === 0 && history.messages.length <= 1) {
          return { observations: yield* background.renderActive(key), history: history.messages }
        }
        const active = yield* store.activeLog(key)
        const log = renderLog(active)
        // A record without a reflection or a chunk has observed nothing yet (a message is covered
        // only by a chunk of its record, kept in its reflection): nothing to leave out, no read.
        if (active.reflection === null && active.chunks.length === 0)
          return { observations: log, history: yield* history.all }
        const observed = yield* store.observedIds(key, threadId)
        const messages = yield* ThreadWindows.covering(history, observed)
        let covered = 0
        while (covered < messages.length - 1 && observed.has(messages[covered]!.id)) covered++
        return { observations: log, history: covered === 0 ? messages : messages.slice(covered) }
      })

    /** After threads were deleted: their messages leave the ledger, and what came only from them goes. */
    const forgetThreads = (threadIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        yield* store.forgetThreads(threadIds)
        yield* store.forgetOrphans(new Date(yield* Clock.currentTimeMillis))
      })

    return {
      observationalMemoryEnabled: on,
      record,
      observations,
      contextFor,
      afterTurn: background.afterTurn,
      forgetThreads,
      reflections: (key: string) => store.reflections(key),
    }
  })
