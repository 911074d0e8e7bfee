import { Effect } from "effect"
import type { StorageError } from "../storage/StorageError.js"
import type { StoredMessage, Threads, ThreadTail, ThreadWindow } from "./Threads.js"

/**
 * How many of a thread's newest messages a run reads first. Observational memory leaves the
 * older ones out of the model's context once observed; a reader needing more widens the window
 * (`covering`) or reads it all.
 */
export const defaultTail = 64

/** A window over messages already in hand: the whole thread. */
export const complete = (messages: ReadonlyArray<StoredMessage>): ThreadWindow => ({
  messages,
  before: 0,
  widen: () => Effect.succeed({ messages, before: 0 }),
  all: Effect.succeed(messages),
  holding: (messageIds) =>
    Effect.sync(() => {
      const wanted = new Set(messageIds)
      return new Set(messages.filter((message) => wanted.has(message.id)).map((message) => message.id))
    }),
})

/**
 * The thread's newest `last` messages (`Threads.tail`), with the reads of more on `threads`. A
 * thread that is gone meanwhile is a defect: a run holds its thread.
 */
export const read = (threads: Threads["Type"], threadId: string, last: number = defaultTail) =>
  Effect.map(
    threads.tail(threadId, last).pipe(Effect.catchTag("ThreadNotFound", Effect.die)),
    (tail): ThreadWindow => (tail.before === 0 ? complete(tail.messages) : over(threads, threadId, tail)),
  )

const over = (threads: Threads["Type"], threadId: string, tail: ThreadTail): ThreadWindow => ({
  ...tail,
  widen: (last) => threads.tail(threadId, last).pipe(Effect.catchTag("ThreadNotFound", Effect.die)),
  all: threads.messages(threadId).pipe(Effect.catchTag("ThreadNotFound", Effect.die)),
  holding: (messageIds) => threads.holding(threadId, messageIds).pipe(Effect.catchTag("ThreadNotFound", Effect.die)),
})

/** The window after `answer` was saved: a continued message replaced where it stands, else appended. */
export const withAnswer = (window: ThreadWindow, answer: StoredMessage | undefined): ThreadWindow => {
  if (answer === undefined) return window
  const place = (messages: ReadonlyArray<StoredMessage>): ReadonlyArray<StoredMessage> => {
    const at = messages.findIndex((message) => message.id === answer.id)
    if (at === -1) return [...messages, answer]
    return messages.map((message, index) => (index === at ? answer : message))
  }
  if (window.before === 0) return complete(place(window.messages))
  return {
    ...window,
    messages: place(window.messages),
    // Read after the save, the thread has the answer already: placing it again changes nothing.
    all: Effect.map(window.all, place),
  }
}

const countIn = (ids: ReadonlySet<string>, messages: ReadonlyArray<StoredMessage>) => {
  let count = 0
  for (const message of messages) if (ids.has(message.id)) count++
  return count
}

/**
 * A suffix of the thread such that every message before it is one of `ids` — ids of messages of
 * this thread, each once (what memory counted or observed of it) —: the window's own messages
 * when `ids` hold every older one, else the shortest tail that could be, else the whole thread.
 * So a reader that skips the messages in `ids` from the head on sees exactly what the whole
 * thread would have shown it, reading only what it does not skip (and one window).
 */
export const covering = (
  window: ThreadWindow,
  ids: ReadonlySet<string>,
): Effect.Effect<ReadonlyArray<StoredMessage>, StorageError> =>
  Effect.gen(function* () {
    if (window.before === 0) return window.messages
    const olderInIds = ids.size - countIn(ids, window.messages)
    if (olderInIds === window.before) return window.messages
    // When `ids` are the head of the thread, the first message not in them is at `olderInIds`.
    if (olderInIds >= 0 && olderInIds < window.before) {
      const wider = yield* window.widen(window.before + window.messages.length - olderInIds)
      if (wider.before === 0 || ids.size - countIn(ids, wider.messages) === wider.before) return wider.messages
    }
    return yield* window.all
  })
