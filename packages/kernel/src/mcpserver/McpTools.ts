import { Effect, Option, Schema } from "effect"
import { Inbox } from "../inbox/Inbox.js"
import { Memory } from "../memory/Memory.js"
import { queryTerms } from "../memory/recall/internal/terms.js"
import { RecallIndex } from "../memory/recall/RecallIndex.js"
import { TaskInput } from "../scheduler/ScheduleModel.js"
import { Scheduler } from "../scheduler/Scheduler.js"
import { Threads } from "../threads/Threads.js"
import { approve, ask } from "./McpAsk.js"
import { failWith, type McpTool, ToolFailure, tool, withMessage } from "./McpToolSpec.js"

const Id = (what: string) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `${what} must not be empty` }),
    Schema.maxLength(200, { message: () => `${what} must be at most 200 characters` }),
  ).annotations({ description: what })

const Limit = Schema.Int.pipe(Schema.between(1, 50)).annotations({ description: "Most results, 1-50; default 10" })

const threadsSearch = tool({
  name: "threads_search",
  title: "Search conversations",
  description:
    "Finds the owner's conversations with Aide: by words in their messages (full-text), or the latest ones without a query.",
  input: Schema.Struct({
    query: Schema.optional(Schema.String.pipe(Schema.maxLength(500)).annotations({ description: "Words to find" })),
    limit: Schema.optional(Limit),
  }),
  readOnly: true,
  destructive: false,
  run: ({ query, limit = 10 }) =>
    Effect.gen(function* () {
      const threads = yield* Threads
      const terms = query === undefined ? [] : queryTerms(query)
      if (terms.length === 0) {
        const page = yield* threads.list({ page: 0, perPage: limit })
        return {
          threads: page.threads.map((thread) => ({ id: thread.id, title: thread.title, updatedAt: thread.updatedAt })),
        }
      }
      const hits = yield* (yield* RecallIndex).searchText(terms, { excludeThreadId: "", limit: limit * 5 })
      const ids = [...new Set(hits.map((hit) => hit.threadId))].slice(0, limit)
      const found = yield* Effect.forEach(ids, (id) => Effect.option(threads.get(id)))
      return {
        threads: found.flatMap((thread) =>
          Option.isSome(thread)
            ? [{ id: thread.value.id, title: thread.value.title, updatedAt: thread.value.updatedAt }]
            : [],
        ),
      }
    }).pipe(Effect.orDie),
})

const memoryRead = tool({
  name: "memory_read",
  title: "Read memory",
  description: "Reads what Aide remembers about the owner: the working memory document and its observations.",
  input: Schema.Struct({}),
  readOnly: true,
  destructive: false,
  run: () =>
    Effect.gen(function* () {
      const memory = yield* Memory
      return { workingMemory: yield* memory.workingMemory, observations: yield* memory.observations() }
    }).pipe(Effect.orDie),
})

const memoryUpdate = tool({
  name: "memory_update",
  title: "Replace working memory",
  description: "Replaces Aide's working memory (a Markdown document about the owner) with `content`.",
  input: Schema.Struct({ content: Schema.String.annotations({ description: "The whole new document, Markdown" }) }),
  readOnly: false,
  destructive: true,
  run: ({ content }) =>
    Effect.flatMap(Memory, (memory) => memory.setWorkingMemory(content)).pipe(
      Effect.map((document) => ({ content: document.content })),
      Effect.catchTags({
        WorkingMemoryDisabled: withMessage,
        WorkingMemoryEditRefused: withMessage,
        WorkingMemoryTooLarge: withMessage,
        WorkingMemoryInvalid: withMessage,
        StorageError: (error) => Effect.die(error),
      }),
    ),
})

const inboxList = tool({
  name: "inbox_list",
  title: "List the inbox",
  description: "Lists the owner's inbox: messages from scheduled tasks and from Aide, newest first.",
  input: Schema.Struct({
    archived: Schema.optional(
      Schema.Boolean.annotations({ description: "true lists archived messages; default false" }),
    ),
  }),
  readOnly: true,
  destructive: false,
  run: ({ archived = false }) =>
    Effect.flatMap(Inbox, (inbox) => inbox.list({ archived })).pipe(
      Effect.map((messages) => ({ messages })),
      Effect.orDie,
    ),
})

const inboxMarkRead = tool({
  name: "inbox_mark_read",
  title: "Mark an inbox message read",
  description: "Marks an inbox message read (or unread with read: false).",
  input: Schema.Struct({ id: Id("The message's id"), read: Schema.optional(Schema.Boolean) }),
  readOnly: false,
  destructive: false,
  run: ({ id, read = true }) =>
    Effect.flatMap(Inbox, (inbox) => inbox.update(id, { read })).pipe(
      Effect.catchTags({
        InboxMessageNotFound: failWith("Message not found"),
        StorageError: (error) => Effect.die(error),
      }),
    ),
})

const scheduleList = tool({
  name: "schedule_list",
  title: "List scheduled tasks",
  description: "Lists Aide's scheduled tasks and the heartbeat.",
  input: Schema.Struct({}),
  readOnly: true,
  destructive: false,
  run: () => Effect.flatMap(Scheduler, (scheduler) => scheduler.list).pipe(Effect.orDie),
})

const scheduleCreate = tool({
  name: "schedule_create",
  title: "Schedule a task",
  description:
    "Schedules a prompt for Aide to run: recurring (cron, in the owner's time zone) or once (runAt); the result goes to the inbox or a channel.",
  input: TaskInput,
  readOnly: false,
  destructive: false,
  run: (input) =>
    Effect.flatMap(Scheduler, (scheduler) => scheduler.create(input)).pipe(
      Effect.catchTags({ InvalidSchedule: withMessage, StorageError: (error) => Effect.die(error) }),
    ),
})

const scheduleDelete = tool({
  name: "schedule_delete",
  title: "Delete a scheduled task",
  description: "Deletes a scheduled task for good.",
  input: Schema.Struct({ id: Id("The task's id") }),
  readOnly: false,
  destructive: true,
  run: ({ id }) =>
    Effect.flatMap(Scheduler, (scheduler) => scheduler.delete(id)).pipe(
      Effect.as({ deleted: id }),
      Effect.catchTags({ TaskNotFound: failWith("Task not found"), StorageError: (error) => Effect.die(error) }),
    ),
})

const notify = tool({
  name: "notify",
  title: "Notify the owner",
  description: "Puts a message in the owner's inbox, or sends it to a channel destination (see schedule destinations).",
  input: Schema.Struct({
    subject: Schema.String.pipe(
      Schema.filter((subject) => subject.trim() !== "", { message: () => "must not be blank" }),
      Schema.maxLength(200),
    ).annotations({ description: "A short subject line" }),
    body: Schema.String.pipe(Schema.maxLength(100_000)).annotations({ description: "The message, in Markdown" }),
    destination: Schema.optional(
      Schema.String.pipe(Schema.maxLength(200)).annotations({
        description: "Where to deliver it: 'Web Inbox' (default) or a channel destination",
      }),
    ),
  }),
  readOnly: false,
  destructive: false,
  run: (input) =>
    Effect.gen(function* () {
      const inbox = yield* Inbox
      const destination = yield* inbox
        .resolveDestination(input.destination ?? "Web Inbox")
        .pipe(
          Effect.catchTag("UnknownDestination", (error) =>
            Effect.fail(new ToolFailure({ message: `unknown destination ${JSON.stringify(error.destination)}` })),
          ),
        )
      const message = yield* inbox
        .create({ subject: input.subject.trim(), body: input.body, destination })
        .pipe(Effect.orDie)
      return { id: message.id, status: message.status }
    }),
})

/** Every tool `/mcp` can expose, by name: which of them a client sees is the owner's choice. */
export const tools: ReadonlyArray<McpTool> = [
  ask,
  approve,
  threadsSearch,
  memoryRead,
  memoryUpdate,
  inboxList,
  inboxMarkRead,
  scheduleCreate,
  scheduleList,
  scheduleDelete,
  notify,
]
