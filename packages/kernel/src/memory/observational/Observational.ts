import { Clock, Effect, FiberSet, Option } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import { observationalMemoryOn } from "../../config/MemoryConfig.js"
import { Ids } from "../../ids/Ids.js"
import { type StoredMessage, Threads, type ThreadWindow } from "../../threads/Threads.js"
import * as ThreadWindows from "../../threads/ThreadWindow.js"
import type { ObservationalOptions } from "../Memory.js"
import * as Claims from "./Claims.js"
import * as MemoryModelCall from "./MemoryModelCall.js"
import { ObservationStore, type RecordKey, type RecordRow } from "./ObservationStore.js"
import * as Observer from "./Observer.js"
import * as Reflector from "./Reflector.js"
import { renderLog } from "./RenderLog.js"
import * as Tokens from "./Tokens.js"

/**
 * Observer calls one background pass may make. A pass goes on while the pending tokens stay over
 * the threshold and its calls succeed; the bound only stops a pathological loop.
 */
const maxObserverCallsPerPass = 100

export const keyOf = (config: AppConfigDocument, threadId: string): RecordKey =>
  config.memory.observationalMemory.scope === "resource" ? "resource" : `thread:${threadId}`

/** A message still waiting on the owner's approval is not final: it is counted once decided. */
const isFinal = (message: StoredMessage) =>
  !message.parts.some(
    (part) => typeof part === "object" && part !== null && (part as { state?: unknown }).state === "approval-requested",
  )

/**
 * Observational memory's background work: after each turn the thread's new messages are counted
 * into the record; past `messageTokens` the observer runs, past `observationTokens` the
 * reflector. Never in the way of a chat: it runs in the service's own fibers, one pass per record
 * at a time in this process (a turn arriving meanwhile asks for one more pass), one claim holder
 * at a time across processes.
 */
export const make = (options: ObservationalOptions = {}) =>
  Effect.gen(function* () {
    const store = yield* ObservationStore
    const threads = yield* Threads
    const appConfig = yield* AppConfig
    const ids = yield* Ids
    const claims = yield* Claims.make({ ...Claims.defaultClaimSettings, ...options.claims })
    const call = yield* MemoryModelCall.make
    const observer = yield* Observer.make(claims, call)
    const reflector = yield* Reflector.make(claims, call)
    const fibers = yield* FiberSet.make()
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    if (options.releaseClaimsAtStart === true) yield* Effect.ignore(store.releaseAllClaims)

    const ensureRecord = (config: AppConfigDocument, key: RecordKey) =>
      Effect.flatMap(Effect.zip(ids.uuid, now), ([id, at]) =>
        store.ensureRecord(key, config.memory.observationalMemory.scope, id, at),
      )

    /** Counts the thread's final messages into the record (each once). */
    const ingest = (key: RecordKey, threadId: string, saved: ThreadWindow | undefined) =>
      Effect.gen(function* () {
        let messages: ReadonlyArray<StoredMessage>
        let counted: ReadonlySet<string>
        if (saved === undefined) {
          messages = yield* threads.messages(threadId)
          counted = yield* store.countedIds(key, threadId)
        } else {
          // Of a long thread only the tail the counted head leaves (usually the run's window).
          counted = yield* store.countedIds(key, threadId)
          messages = yield* ThreadWindows.covering(saved, counted)
        }
        const at = yield* now
        const fresh = messages.filter((message) => !counted.has(message.id) && isFinal(message))
        // Messages not counted before (a thread older than memory) keep their order by a step each.
        const entries = fresh.map((message, index) => ({
          threadId,
          messageId: message.id,
          tokens: Tokens.ofMessage(message),
          createdAt: new Date(at.getTime() - (fresh.length - 1 - index)),
        }))
        return yield* store.ingest(key, entries)
      })

    /**
     * Observer, then reflector, while over their thresholds. `known`: the record as the turn
     * read it; while no observation was made since, the reflector's check needs no read again
     * (another process's observation runs that process's own check).
     */
    const pass = (key: RecordKey, known?: RecordRow) =>
      Effect.gen(function* () {
        let observed = false
        for (let calls = 0; calls < maxObserverCallsPerPass; calls++) {
          const config = yield* appConfig.get
          if (!observationalMemoryOn(config.memory)) return
          const pending = yield* store.pendingTokens(key)
          if (pending < config.memory.observationalMemory.messageTokens) break
          observed = true
          if ((yield* observer.observe(key, config)) !== "done") break
        }
        const config = yield* appConfig.get
        if (!observationalMemoryOn(config.memory)) return
        const record = !observed && known !== undefined ? Option.some(known) : yield* store.record(key)
        if (
          record._tag === "Some" &&
          record.value.observationTokenCount >= config.memory.observationalMemory.observationTokens
        ) {
          yield* reflector.reflect(key, config)
        }
      })

    /** Thread scope: a fork starts with its source's observations up to the fork point. */
    const inheritFromSource = (key: RecordKey, threadId: string) =>
      Effect.gen(function* () {
        const thread = yield* threads.get(threadId)
        if (thread.parentId === null) return
        // The store copies inside one transaction; the ids come from the kernel's `Ids`, synchronously.
        const newId = () => Effect.runSync(ids.uuid)
        yield* store.inheritFork(`thread:${thread.parentId}`, key, threadId, newId, yield* now)
      })

    /** Per record: a pass running in this process, and whether another was asked for meanwhile. */
    const passes = new Map<RecordKey, { again: boolean }>()
    const runPasses = (key: RecordKey, known?: RecordRow): Effect.Effect<void> => {
      const running = passes.get(key)
      if (running !== undefined) {
        running.again = true
        return Effect.void
      }
      const state = { again: true }
      passes.set(key, state)
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        if (!state.again) return Effect.void
        state.again = false
        // Only the first pass may take the turn's record: a pass asked for meanwhile reads it.
        const first = known
        known = undefined
        return pass(key, first).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("memory: a background pass failed", cause)),
          Effect.zipRight(loop),
        )
      })
      return FiberSet.run(fibers, loop.pipe(Effect.ensuring(Effect.sync(() => passes.delete(key))))).pipe(Effect.asVoid)
    }

    /** After a turn was saved: counts it and starts a pass. Returns at once; never fails. */
    const afterTurn = (threadId: string, saved?: ThreadWindow) =>
      Effect.gen(function* () {
        const config = yield* appConfig.get
        if (!observationalMemoryOn(config.memory)) return
        const key = keyOf(config, threadId)
        const record = yield* ensureRecord(config, key)
        yield* ingest(key, threadId, saved)
        // A fork's inherited observations change the record: its pass reads it again.
        const inherits = key !== "resource" && record.lastObservedAt === null
        if (inherits) yield* inheritFromSource(key, threadId)
        yield* runPasses(key, inherits ? undefined : record)
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("memory: a turn could not be counted", cause)),
        (counting) => FiberSet.run(fibers, counting),
        Effect.asVoid,
      )

    return {
      ensureRecord,
      afterTurn,
      runPasses,
      renderActive: (key: RecordKey) => Effect.map(store.activeLog(key), renderLog),
    }
  })
