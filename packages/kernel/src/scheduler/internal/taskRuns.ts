import { Effect, Either } from "effect"
import type { Chat } from "../../chat/Chat.js"
import type { ScheduledTaskConfig } from "../../config/ScheduleConfig.js"
import { Inbox, webInboxLabel } from "../../inbox/Inbox.js"
import type { StorageError } from "../../storage/StorageError.js"
import type { Threads } from "../../threads/Threads.js"
import type { ResolvedHeartbeat } from "../DueTimes.js"
import * as PromptRunner from "../PromptRunner.js"
import type { RunOutcome } from "../RunLedger.js"
import { heartbeatThreadId, taskThreadId } from "../ScheduleModel.js"

/** What one fired due time does: a task's prompt, or a heartbeat beat, answered with its outcome. */
export interface TaskRuns {
  readonly runTask: (task: ScheduledTaskConfig) => Effect.Effect<RunOutcome, StorageError>
  readonly beat: (heartbeat: ResolvedHeartbeat) => Effect.Effect<RunOutcome, StorageError>
}

export interface RunLimits {
  /** Cap on model steps of a task run. */
  readonly maxSteps: number
  /** Cap on model steps of a heartbeat beat. */
  readonly heartbeatMaxSteps: number
  /** Beats kept in the heartbeat thread; when it holds more, it starts afresh. */
  readonly heartbeatHistory: number
}

export const make = (limits: RunLimits): Effect.Effect<TaskRuns, never, Chat | Threads | Inbox> =>
  Effect.gen(function* () {
    const inbox = yield* Inbox
    const runner = yield* PromptRunner.make

    const deliver = (subject: string, body: string, threadId: string, label: string) =>
      Effect.gen(function* () {
        // A destination gone since (a channel plugin disabled) still gets the message: its
        // delivery fails and it stays readable in the web inbox.
        const destination = yield* Effect.orElseSucceed(inbox.resolveDestination(label), () => label)
        return yield* inbox.create({ subject, body, threadId, destination })
      })

    const runTask = (task: ScheduledTaskConfig) =>
      Effect.gen(function* () {
        const threadId = taskThreadId(task.id)
        yield* runner.prepare(threadId, task.name)
        const result = yield* Effect.either(runner.run(threadId, task.prompt, limits.maxSteps))
        if (Either.isLeft(result) && result.left._tag === "ChatBusy") {
          return { status: "skipped", error: "the task's thread was busy" } satisfies RunOutcome
        }
        const failed = Either.isLeft(result) ? result.left.message || result.left._tag : undefined
        if (task.destination === undefined) {
          return (
            failed === undefined ? { status: "succeeded" } : { status: "failed", error: failed }
          ) satisfies RunOutcome
        }
        const message = Either.isRight(result)
          ? yield* deliver(task.name, result.right === "" ? "(no answer)" : result.right, threadId, task.destination)
          : yield* deliver(`${task.name} (failed)`, `The scheduled task failed: ${failed}`, threadId, task.destination)
        return {
          status: failed === undefined ? "succeeded" : "failed",
          error: failed ?? null,
          inboxMessageId: message.id,
        } satisfies RunOutcome
      })

    const beat = (heartbeat: ResolvedHeartbeat) =>
      Effect.gen(function* () {
        const items = heartbeat.tasks.filter((item) => item.enabled).map((item) => item.description)
        yield* runner.trim(heartbeatThreadId, limits.heartbeatHistory * 2)
        yield* runner.prepare(heartbeatThreadId, "Heartbeat")
        const result = yield* Effect.either(
          runner.run(heartbeatThreadId, PromptRunner.heartbeatPrompt(items), limits.heartbeatMaxSteps),
        )
        if (Either.isLeft(result)) {
          return result.left._tag === "ChatBusy"
            ? ({ status: "skipped", error: "the heartbeat thread was busy" } satisfies RunOutcome)
            : ({ status: "failed", error: result.left.message || result.left._tag } satisfies RunOutcome)
        }
        if (PromptRunner.isNothingToReport(result.right)) return { status: "succeeded" } satisfies RunOutcome
        const message = yield* deliver(
          "Heartbeat",
          result.right,
          heartbeatThreadId,
          heartbeat.destination ?? webInboxLabel,
        )
        return { status: "succeeded", inboxMessageId: message.id } satisfies RunOutcome
      })

    return { runTask, beat }
  })
