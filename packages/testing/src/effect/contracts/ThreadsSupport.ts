import { Threads as Module } from "@aide/kernel/threads"
import { Effect, TestClock } from "effect"

type Threads = Module.Threads["Type"]
type StoredMessage = Module.StoredMessage

/** The test clock starts at 1970-01-01T00:00:00Z; each `later` is one second on. */
export const later = TestClock.adjust("1 second")
export const at = (seconds: number) => new Date(seconds * 1000)

export const text = (id: string, role: StoredMessage["role"], body: string): StoredMessage => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
})

/** A root thread with messages m1…mN, alternating user and assistant. */
export const conversation = (threads: Threads, id: string, count: number) =>
  Effect.gen(function* () {
    yield* threads.ensure(id)
    for (let n = 1; n <= count; n++) {
      yield* threads.saveMessage(id, text(`m${n}`, n % 2 === 1 ? "user" : "assistant", `message ${n}`))
    }
    return id
  })

export const messageIds = (messages: ReadonlyArray<StoredMessage>) => messages.map((message) => message.id)

/** How many threads (every branch) or messages the store holds, read through its interface only. */
export const rowCount = (threads: Threads, what: "threads" | "messages") =>
  Effect.gen(function* () {
    const page = yield* threads.list({ page: 0, perPage: false })
    const all = page.threads.flatMap((family) => family.threadIds)
    if (what === "threads") return all.length
    let messages = 0
    for (const id of all) messages += (yield* threads.messages(id)).length
    return messages
  })
