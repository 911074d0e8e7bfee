import { Clock, Effect, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { workingMemoryOn } from "../config/MemoryConfig.js"
import type { WorkingMemoryEdit } from "./Memory.js"
import {
  WorkingMemoryDisabled,
  WorkingMemoryEditRefused,
  WorkingMemoryInvalid,
  WorkingMemoryTooLarge,
} from "./MemoryErrors.js"
import { MemoryStore } from "./MemoryStore.js"

/** The scope of working memory: the owner's, one document shared by every thread. */
const workingScope = "resource"

/** Largest working memory document, in UTF-8 bytes: it goes into every system prompt. */
export const maxWorkingBytes = 16 * 1024

/** Earlier versions kept per scope, for undoing a bad edit. */
export const keptVersions = 20

/** Attempts of one edit when other writers keep coming first. */
const maxEditAttempts = 10

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused
const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8")

/** The document after `edit`, or why the edit cannot apply. */
export const applyEdit = (current: string, edit: WorkingMemoryEdit): string | WorkingMemoryEditRefused => {
  if (edit.kind === "append") {
    if (current === "") return edit.text
    return current.endsWith("\n") ? `${current}${edit.text}` : `${current}\n${edit.text}`
  }
  if (edit.search === "") return new WorkingMemoryEditRefused({ reason: "the text to replace is empty" })
  const first = current.indexOf(edit.search)
  if (first === -1) return new WorkingMemoryEditRefused({ reason: "the text to replace is not in working memory" })
  if (current.indexOf(edit.search, first + 1) !== -1) {
    return new WorkingMemoryEditRefused({ reason: "the text to replace occurs more than once: quote more of it" })
  }
  return current.slice(0, first) + edit.replacement + current.slice(first + edit.search.length)
}

/** The working memory half of `Memory`. */
export const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const config = yield* AppConfig
  const enabled = Effect.map(config.get, (document) => workingMemoryOn(document.memory))
  const requireEnabled = Effect.flatMap(enabled, (on) => (on ? Effect.void : Effect.fail(new WorkingMemoryDisabled())))
  const checkContent = (content: string) => {
    if (controlCharacters.test(content)) return Effect.fail(new WorkingMemoryInvalid())
    const bytes = utf8Bytes(content)
    return bytes > maxWorkingBytes
      ? Effect.fail(new WorkingMemoryTooLarge({ bytes, limit: maxWorkingBytes }))
      : Effect.void
  }
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
  // Edits of this process go one at a time; compare-and-set settles those of other processes.
  const oneAtATime = yield* Effect.makeSemaphore(1)

  /** Reads, computes the next text and writes it if nobody wrote meanwhile; else again. */
  const writeWith = <E>(next: (current: string) => Effect.Effect<string, E>) =>
    Effect.gen(function* () {
      for (let attempt = 1; attempt <= maxEditAttempts; attempt++) {
        const current = yield* store.readWorking(workingScope)
        const content = yield* next(Option.match(current, { onNone: () => "", onSome: (doc) => doc.content }))
        yield* checkContent(content)
        const version = Option.match(current, { onNone: () => 0, onSome: (doc) => doc.version })
        const written = yield* store.writeWorking(workingScope, content, version, yield* now, keptVersions)
        if (Option.isSome(written)) return written.value
      }
      return yield* new WorkingMemoryEditRefused({ reason: "working memory kept changing; try again" })
    }).pipe(oneAtATime.withPermits(1))

  return {
    workingMemoryEnabled: enabled,
    workingMemory: Effect.flatMap(enabled, (on) =>
      on
        ? Effect.map(
            store.readWorking(workingScope),
            Option.match({ onNone: () => null, onSome: (doc) => doc.content }),
          )
        : Effect.succeed(null),
    ),
    setWorkingMemory: (content: string) =>
      Effect.zipRight(
        requireEnabled,
        writeWith(() => Effect.succeed(content)),
      ).pipe(Effect.withSpan("Memory.setWorkingMemory")),
    editWorkingMemory: (edit: WorkingMemoryEdit) =>
      Effect.zipRight(
        requireEnabled,
        writeWith((current) => {
          const next = applyEdit(current, edit)
          return typeof next === "string" ? Effect.succeed(next) : Effect.fail(next)
        }),
      ).pipe(Effect.withSpan("Memory.editWorkingMemory")),
    workingMemoryHistory: store.workingHistory(workingScope),
  }
})
