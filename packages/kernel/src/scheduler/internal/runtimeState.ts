import type { Cause } from "effect"
import { Effect, FiberMap, Queue, type Scope } from "effect"
import type { StorageError } from "../../storage/StorageError.js"
import { dueOf, type Entry, initialCursor } from "../DueTimes.js"
import { RunLedger, type TaskState } from "../RunLedger.js"

/**
 * What the firing loop, the runs and the editor API share: each task's run count and cursor (read
 * from the ledger once, then kept in step with every write to it), the due times computed from
 * them, the runs of this process with their fibers, and the loop's wake-up signal.
 */
export interface RuntimeState {
  readonly ledger: RunLedger["Type"]
  /** Runs older than this are taken for abandoned (their process stopped without finishing them). */
  readonly staleAfterMillis: number
  /** Run fibers by task id, in the layer's scope: removing one interrupts its run. */
  readonly fibers: FiberMap.FiberMap<string>
  /** Tasks with a run of this process in progress (the ledger only learns of it once claimed). */
  readonly localRunning: Set<string>
  /** Runs this scheduler has started, ever: a manual pass answers how many it fired by the difference. */
  readonly started: { count: number }
  /** Why the latest pass failed (it was logged), for a host that answers for the pass; cleared by a good one. */
  readonly failure: { last: Cause.Cause<unknown> | undefined }
  readonly states: Map<string, TaskState>
  /** Wakes the loop early (a config change, a finished run). */
  readonly wakeUp: Effect.Effect<void>
  /** Resolves once something asked the loop to wake up. */
  readonly wakeUpSignal: Queue.Dequeue<void>
  readonly cursorOf: (entry: Entry, now: number) => number
  /** The entry's next due time (`dueOf`), cached while its cursor and schedule are unchanged. */
  readonly cachedDue: (entry: Entry, now: number) => number | undefined
  /** Starts counting an entry first seen now, here and in the ledger. */
  readonly track: (entry: Entry, now: number) => Effect.Effect<void, StorageError>
  /**
   * Starts counting the entries this process has not seen: from the ledger's state when another
   * scheduler (the editor that created the task, another instance) recorded one, else from now.
   */
  readonly trackNew: (entries: ReadonlyArray<Entry>, now: number) => Effect.Effect<void, StorageError>
  readonly setCursor: (taskId: string, cursor: number) => Effect.Effect<void, StorageError>
  /** Records a claimed due time: the cursor never moves back, and only a won claim has a run count. */
  readonly recordClaim: (taskId: string, dueAt: number, runCount: number | undefined) => void
  /** Drops a removed task's state, here and in the ledger. */
  readonly forget: (taskId: string) => Effect.Effect<void, StorageError>
  /** Tasks running anywhere (the ledger) or starting here. */
  readonly runningIds: (now: number) => Effect.Effect<ReadonlySet<string>, StorageError>
}

export const make = (staleAfterMillis: number): Effect.Effect<RuntimeState, StorageError, RunLedger | Scope.Scope> =>
  Effect.gen(function* () {
    const ledger = yield* RunLedger
    const fibers = yield* FiberMap.make<string>()
    const localRunning = new Set<string>()
    const wakeUpSignal = yield* Queue.sliding<void>(1)
    const states = new Map(yield* ledger.states)
    /** Next due times computed from an unchanged cursor and schedule: 10,000 tasks cost a map lookup each per wake. */
    const dueCache = new Map<string, { readonly key: string; readonly due: number | undefined }>()

    const cursorOf = (entry: Entry, now: number) => states.get(entry.id)?.cursor ?? initialCursor(entry, now)

    const cachedDue = (entry: Entry, now: number) => {
      const cursor = cursorOf(entry, now)
      const key = `${cursor}|${entry.cron}|${entry.runAt}|${entry.zone}`
      const cached = dueCache.get(entry.id)
      if (cached !== undefined && cached.key === key && (cached.due === undefined || cached.due > now)) {
        return cached.due
      }
      const due = dueOf(entry, cursor, now)
      dueCache.set(entry.id, { key, due })
      return due
    }

    const track = (entry: Entry, now: number) => {
      const cursor = initialCursor(entry, now)
      return Effect.zipRight(
        ledger.ensureState(entry.id, cursor),
        Effect.sync(() => {
          if (!states.has(entry.id)) states.set(entry.id, { runCount: 0, cursor })
        }),
      )
    }

    const trackNew = (entries: ReadonlyArray<Entry>, now: number) =>
      Effect.gen(function* () {
        const unseen = entries.filter((entry) => !states.has(entry.id))
        if (unseen.length === 0) return
        // One read for all of them: a warm instance learns what was recorded since it started.
        const stored = yield* ledger.states
        for (const entry of unseen) {
          const known = stored.get(entry.id)
          if (known !== undefined) states.set(entry.id, known)
          else yield* track(entry, now)
        }
      })

    const setCursor = (taskId: string, cursor: number) =>
      Effect.zipRight(
        Effect.sync(() => states.set(taskId, { runCount: states.get(taskId)?.runCount ?? 0, cursor })),
        ledger.moveCursor(taskId, cursor),
      )

    const recordClaim = (taskId: string, dueAt: number, runCount: number | undefined) => {
      const previous = states.get(taskId)
      states.set(taskId, {
        runCount: runCount ?? previous?.runCount ?? 0,
        cursor: Math.max(previous?.cursor ?? 0, dueAt),
      })
    }

    const forget = (taskId: string) =>
      Effect.zipRight(
        Effect.sync(() => {
          states.delete(taskId)
          dueCache.delete(taskId)
        }),
        ledger.forgetTask(taskId),
      )

    const runningIds = (now: number) =>
      Effect.map(
        ledger.runningTaskIds(now, staleAfterMillis),
        (running): ReadonlySet<string> => new Set([...running, ...localRunning]),
      )

    return {
      ledger,
      staleAfterMillis,
      fibers,
      localRunning,
      started: { count: 0 },
      failure: { last: undefined },
      states,
      wakeUp: Queue.offer(wakeUpSignal, undefined).pipe(Effect.asVoid),
      wakeUpSignal,
      cursorOf,
      cachedDue,
      track,
      trackNew,
      setCursor,
      recordClaim,
      forget,
      runningIds,
    }
  })
