import { Context, Effect, Layer } from "effect"
import type { AppConfig } from "../config/AppConfig.js"
import type { Ids } from "../ids/Ids.js"
import type { ModelRegistry } from "../models/ModelRegistry.js"
import type { StorageError } from "../storage/StorageError.js"
import type { StoredMessage, Threads, ThreadWindow } from "../threads/Threads.js"
import type * as MemoryErrors from "./MemoryErrors.js"
import type { MemoryRecordView } from "./MemoryRecord.js"
import type { MemoryStore, WorkingDocument } from "./MemoryStore.js"
import type { ClaimSettings } from "./observational/Claims.js"
import * as ObservationalMemory from "./observational/ObservationalMemory.js"
import type { ObservationStore } from "./observational/ObservationStore.js"
import * as WorkingMemory from "./WorkingMemory.js"

type WorkingErrors =
  | MemoryErrors.WorkingMemoryDisabled
  | MemoryErrors.WorkingMemoryTooLarge
  | MemoryErrors.WorkingMemoryInvalid
  | MemoryErrors.WorkingMemoryEditRefused
  | StorageError

/** An edit the model (or a client) makes: never a blind overwrite of what other threads wrote. */
export type WorkingMemoryEdit =
  | { readonly kind: "append"; readonly text: string }
  | { readonly kind: "replace"; readonly search: string; readonly replacement: string }

/** Settings of observational memory (`Memory.layer`, `Kernel.layer({ memory })`). */
export interface ObservationalOptions {
  readonly claims?: Partial<ClaimSettings>
  /** Gives up every claim at start: for a process that owns its storage alone (SQLite in a data dir). */
  readonly releaseClaimsAtStart?: boolean
}

/**
 * The assistant's memory (docs/memory.md): working memory, one markdown document of the owner's
 * (`GET/PUT /api/memory/working`), versioned, edited with compare-and-set; and observational
 * memory: after each turn the conversation is counted, condensed by an observer into dated
 * observations that replace the raw messages in the model's context, and rewritten denser by a
 * reflector — in the background, one claim holder at a time per scope across processes.
 *
 * Contract for an implementation (`Kernel.layer({ memoryLayer })`, with `Recall`; `NoMemory` is one):
 * chat calls `contextFor` before each model call and `afterTurn` after each saved turn, on its
 * own fiber: `afterTurn` must return at once and never fail, `contextFor` must return every
 * message of the thread it does not cover (returning `history.all` is always correct; a long
 * thread's run reads only its newest messages unless `contextFor` asks for more). Working-memory
 * edits come from the owner and from the model's tools: refuse them with the tagged errors
 * of `MemoryErrors`, never a defect. `forgetThreads` follows thread deletion.
 */
export class Memory extends Context.Tag("@aide/kernel/Memory")<
  Memory,
  {
    /** Whether working memory is on (`memory.enabled` and `memory.workingMemory.enabled`). */
    readonly workingMemoryEnabled: Effect.Effect<boolean>
    /** The document; null before the first write, and while working memory is disabled. */
    readonly workingMemory: Effect.Effect<string | null, StorageError>
    /** Overwrites the document (the owner's own edit); refused only if writers kept racing it. */
    readonly setWorkingMemory: (content: string) => Effect.Effect<WorkingDocument, WorkingErrors>
    /** Appends, or replaces one exact occurrence; retried against concurrent writers. */
    readonly editWorkingMemory: (edit: WorkingMemoryEdit) => Effect.Effect<WorkingDocument, WorkingErrors>
    /** Earlier versions, newest first (the current one included). */
    readonly workingMemoryHistory: Effect.Effect<ReadonlyArray<WorkingDocument>, StorageError>
    /** Whether observational memory is on (`memory.enabled` and `memory.observationalMemory.enabled`). */
    readonly observationalMemoryEnabled: Effect.Effect<boolean>
    /** SPEC `GET /api/memory/record`; thread scope: `threadId`'s record, else the latest one. */
    readonly record: (threadId?: string) => Effect.Effect<MemoryRecordView, StorageError>
    /** The active observation log; null while off or before the first observation (never ""). */
    readonly observations: (threadId?: string) => Effect.Effect<string | null, StorageError>
    /**
     * What a run of the thread sends: the observations, and the thread's messages minus what they
     * cover. `history`: the thread as the run read it (its newest messages, and reads of more).
     */
    readonly contextFor: (
      threadId: string,
      history: ThreadWindow,
    ) => Effect.Effect<
      { readonly observations: string | null; readonly history: ReadonlyArray<StoredMessage> },
      StorageError
    >
    /**
     * After a turn was saved: counts it and lets the observer/reflector run. Returns at once.
     * `saved`: the thread as just saved, when the caller has it (a chat run does): spares a
     * read of the whole thread per turn.
     */
    readonly afterTurn: (threadId: string, saved?: ThreadWindow) => Effect.Effect<void>
    /** After threads were deleted: forgets what came only from them. */
    readonly forgetThreads: (threadIds: ReadonlyArray<string>) => Effect.Effect<void, StorageError>
    /** Every reflection of a record (`resource`, `thread:<id>`), oldest first: the audit trail. */
    readonly reflections: (
      key: string,
    ) => Effect.Effect<ReadonlyArray<{ readonly generation: number; readonly content: string }>, StorageError>
  }
>() {}

/** `Memory` over its stores, reading its switches from `AppConfig`, calling models of the registry. */
export const layer = (
  options: ObservationalOptions = {},
): Layer.Layer<Memory, never, MemoryStore | ObservationStore | AppConfig | Threads | ModelRegistry | Ids> =>
  Layer.scoped(
    Memory,
    Effect.gen(function* () {
      const working = yield* WorkingMemory.make
      const observational = yield* ObservationalMemory.make(options)
      return Memory.of({ ...working, ...observational })
    }),
  )
