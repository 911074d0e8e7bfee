import { Clock, Effect, Layer, Schema } from "effect"
import { timeFormat } from "../chat/SystemPrompt.js"
import { AppConfig } from "../config/AppConfig.js"
import { Inbox } from "../inbox/Inbox.js"
import { Memory } from "../memory/Memory.js"
import { ToolExecutionError, ToolRegistry } from "./ToolRegistry.js"
import * as TypedTool from "./TypedTool.js"

const CurrentTimeInput = Schema.Struct({
  timezone: Schema.optional(Schema.String.annotations({ description: "IANA time zone, e.g. Europe/Berlin" })),
})

/** `current_time`: the time now in the configured time zone (or one the model names). */
export const currentTime = Effect.gen(function* () {
  const config = yield* AppConfig
  return TypedTool.make({
    name: "current_time",
    description:
      "Returns the current date and time. Uses the owner's configured time zone unless `timezone` (an IANA name) is given.",
    parameters: CurrentTimeInput,
    execute: (input) =>
      Effect.gen(function* () {
        const timeZone = input.timezone ?? (yield* config.get).timezone
        const now = new Date(yield* Clock.currentTimeMillis)
        const local = yield* Effect.try({
          try: () => timeFormat(timeZone).format(now),
          catch: () => new ToolExecutionError({ message: `unknown time zone ${JSON.stringify(timeZone)}` }),
        })
        return { iso: now.toISOString(), timezone: timeZone, local }
      }),
  })
})

const NotifyInput = Schema.Struct({
  // A plain filtered string: a transformation would put `$defs` in the JSON Schema, which some providers refuse.
  subject: Schema.String.pipe(
    Schema.filter((subject) => subject.trim() !== "", { message: () => "must not be blank" }),
  ).annotations({ description: "A short subject line" }),
  body: Schema.String.annotations({ description: "The message, in Markdown" }),
  destination: Schema.optional(
    Schema.String.annotations({
      description: "Where to deliver it: 'Web Inbox' (default) or a channel from the schedule destinations",
    }),
  ),
})

/** `notify`: puts a message in the owner's inbox (and its channel, when one is named). */
export const notify = Effect.gen(function* () {
  const inbox = yield* Inbox
  return TypedTool.make({
    name: "notify",
    description:
      "Sends the owner a notification: a message in their inbox, linked to this conversation. Use it for " +
      "things they should see later, not for answering the current message.",
    parameters: NotifyInput,
    execute: (input, context) =>
      Effect.gen(function* () {
        const destination = yield* inbox
          .resolveDestination(input.destination ?? "Web Inbox")
          .pipe(
            Effect.catchTag("UnknownDestination", (error) =>
              Effect.fail(
                new ToolExecutionError({ message: `unknown destination ${JSON.stringify(error.destination)}` }),
              ),
            ),
          )
        const message = yield* inbox
          .create({ subject: input.subject.trim(), body: input.body, threadId: context.threadId, destination })
          .pipe(Effect.mapError(() => new ToolExecutionError({ message: "the inbox could not store the message" })))
        return { id: message.id, status: message.status }
      }),
  })
})

const WorkingMemoryInput = Schema.Struct({
  action: Schema.Literal("append", "replace").annotations({
    description:
      "append: add `text` as a new line; replace: change the one exact occurrence of `search` into `replacement`",
  }),
  text: Schema.optional(Schema.String.annotations({ description: "append: the line(s) to add" })),
  search: Schema.optional(
    Schema.String.annotations({ description: "replace: the exact text to change (quote enough of it to be unique)" }),
  ),
  replacement: Schema.optional(
    Schema.String.annotations({ description: "replace: its new text (empty to delete it)" }),
  ),
})

/**
 * `update_working_memory`: the model keeps the owner's notes up to date. Only appends and exact
 * replacements, never a blind overwrite of what other conversations wrote; offered only while
 * working memory is on.
 */
export const updateWorkingMemory = Effect.gen(function* () {
  const memory = yield* Memory
  return TypedTool.make({
    name: "update_working_memory",
    description:
      "Updates the owner's working memory (the notes shown to you in <working_memory>): append a new " +
      "fact, or replace an exact piece of text that changed. Keep it short and factual.",
    parameters: WorkingMemoryInput,
    execute: (input) => {
      const edit =
        input.action === "append"
          ? input.text === undefined || input.text.trim() === ""
            ? undefined
            : ({ kind: "append", text: input.text } as const)
          : input.search === undefined || input.replacement === undefined
            ? undefined
            : ({ kind: "replace", search: input.search, replacement: input.replacement } as const)
      if (edit === undefined) {
        return Effect.fail(
          new ToolExecutionError({
            message: "append needs a non-blank text; replace needs search and replacement",
          }),
        )
      }
      return memory.editWorkingMemory(edit).pipe(
        Effect.map((document) => ({ version: document.version, bytes: Buffer.byteLength(document.content, "utf8") })),
        Effect.catchAll((error) =>
          Effect.fail(
            new ToolExecutionError({
              message: error._tag === "StorageError" ? "working memory could not be saved" : error.message,
            }),
          ),
        ),
      )
    },
  })
})

/**
 * The built-in tools, registered as three sources (`time`, `inbox`, `memory`). Built-ins keep their
 * names as ids (`current_time`, `notify`, `update_working_memory`) and never need approval: they
 * only read or write the owner's own data.
 */
export const layer: Layer.Layer<never, never, ToolRegistry | AppConfig | Inbox | Memory> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const registry = yield* ToolRegistry
    const time = yield* currentTime
    const inbox = yield* notify
    const memory = yield* Memory
    const workingMemory = yield* updateWorkingMemory
    yield* registry.register({ id: "time", kind: "builtin", tools: Effect.succeed([time]) })
    yield* registry.register({ id: "inbox", kind: "builtin", tools: Effect.succeed([inbox]) })
    // Read at the start of every run: switching working memory on or off applies to the next one.
    yield* registry.register({
      id: "memory",
      kind: "builtin",
      tools: Effect.map(memory.workingMemoryEnabled, (on) => (on ? [workingMemory] : [])),
    })
  }),
)
