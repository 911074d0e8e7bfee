import { Effect, Option, Stream } from "effect"
import { pendingCalls } from "../chat/Approvals.js"
import { Chat } from "../chat/Chat.js"
import type { StoredMessage } from "../threads/Threads.js"
import { Threads } from "../threads/Threads.js"
import { heartbeatOkToken } from "./ScheduleModel.js"

/**
 * Running a scheduled prompt through the chat pipeline, like a message from the owner: the run
 * is drained to its end, then the text of the assistant message it saved is the result.
 */
export const make = Effect.gen(function* () {
  const chat = yield* Chat
  const threads = yield* Threads

  const textOf = (message: StoredMessage | undefined) =>
    (message?.parts ?? [])
      .filter((part): part is { type: "text"; text: string } => (part as { type?: unknown }).type === "text")
      .map((part) => part.text)
      .join("")
      .trim()

  /** Gives a new thread a title before its first run (instead of the prompt's first words). */
  const prepare = (threadId: string, title: string) =>
    Effect.gen(function* () {
      const { thread } = yield* threads.ensure(threadId)
      if (thread.title === null) yield* Effect.ignore(threads.setTitle(threadId, title))
    })

  /** Deletes the thread once it holds `maxMessages` or more: a long-lived thread would grow every prompt. */
  const trim = (threadId: string, maxMessages: number) =>
    Effect.gen(function* () {
      const messages = yield* Effect.option(threads.messages(threadId))
      if (Option.isSome(messages) && messages.value.length >= maxMessages)
        yield* Effect.ignore(threads.delete(threadId))
    })

  /** Sends `text` in `threadId` and answers the assistant's text once the run has ended. */
  const run = (threadId: string, text: string, maxSteps: number) =>
    Effect.gen(function* () {
      const started = yield* chat.send({ threadId, parts: [{ type: "text", text }], maxSteps })
      yield* Stream.runDrain(started.events)
      const messages = yield* threads.messages(threadId)
      const answer = messages.findLast(
        (message) =>
          message.role === "assistant" &&
          (message.metadata as { runId?: unknown } | undefined)?.runId === started.runId,
      )
      // Unattended runs pause like any other on a tool needing approval: say so in the result,
      // so the owner knows to open the thread and decide.
      const waiting = answer === undefined ? [] : pendingCalls(answer)
      if (waiting.length === 0) return textOf(answer)
      const names = waiting.map((call) => `\`${call.toolName}\``).join(", ")
      return [textOf(answer), `Waiting for your approval of ${names}: open the conversation to approve or deny.`]
        .filter((line) => line !== "")
        .join("\n\n")
    }).pipe(
      // Stopping the run when the scheduler gives up on it (timeout, shutdown, heartbeat disabled).
      Effect.onInterrupt(() => chat.stop(threadId)),
    )

  return { prepare, trim, run }
})

const tokenPattern = new RegExp(`^[\\s*_\`.!:-]*${heartbeatOkToken}[\\s*_\`.!:-]*$`)

/** True when a heartbeat answer says nothing needs attention (the token alone, maybe decorated). */
export const isNothingToReport = (answer: string): boolean => tokenPattern.test(answer.trim())

/** The heartbeat's one model turn: the enabled checklist items and the convention for "nothing". */
export const heartbeatPrompt = (items: ReadonlyArray<string>): string =>
  [
    "Heartbeat: a periodic check run by the scheduler, not a message from the owner.",
    "Go through this checklist (use your tools where they help):",
    ...items.map((item) => `- ${item}`),
    `If nothing needs the owner's attention, answer exactly ${heartbeatOkToken} and nothing else.`,
    `Otherwise answer with a short report of only what needs attention, without ${heartbeatOkToken}.`,
  ].join("\n")
