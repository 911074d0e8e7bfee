import { Clock, Effect, Layer } from "effect"
import { timeFormat } from "../chat/SystemPrompt.js"
import { AppConfig } from "../config/AppConfig.js"
import { Inbox } from "../inbox/Inbox.js"
import { type ToolDefinition, ToolExecutionError, ToolRegistry } from "./ToolRegistry.js"

/** Reads `key` of a tool input as a string. */
const stringField = (input: unknown, key: string): string | undefined => {
  const value = typeof input === "object" && input !== null ? (input as Record<string, unknown>)[key] : undefined
  return typeof value === "string" ? value : undefined
}

/** `current_time`: the time now in the configured time zone (or one the model names). */
export const currentTime = Effect.gen(function* () {
  const config = yield* AppConfig
  const tool: ToolDefinition = {
    name: "current_time",
    description:
      "Returns the current date and time. Uses the owner's configured time zone unless `timezone` (an IANA name) is given.",
    inputSchema: {
      type: "object",
      properties: { timezone: { type: "string", description: "IANA time zone, e.g. Europe/Berlin" } },
      additionalProperties: false,
    },
    requireApproval: false,
    execute: (input) =>
      Effect.gen(function* () {
        const timeZone = stringField(input, "timezone") ?? (yield* config.get).timezone
        const now = new Date(yield* Clock.currentTimeMillis)
        const local = yield* Effect.try({
          try: () => timeFormat(timeZone).format(now),
          catch: () => new ToolExecutionError({ message: `unknown time zone ${JSON.stringify(timeZone)}` }),
        })
        return { iso: now.toISOString(), timezone: timeZone, local }
      }),
  }
  return tool
})

/** `notify`: puts a message in the owner's inbox (and its channel, when one is named). */
export const notify = Effect.gen(function* () {
  const inbox = yield* Inbox
  const tool: ToolDefinition = {
    name: "notify",
    description:
      "Sends the owner a notification: a message in their inbox, linked to this conversation. Use it for " +
      "things they should see later, not for answering the current message.",
    inputSchema: {
      type: "object",
      properties: {
        subject: { type: "string", description: "A short subject line" },
        body: { type: "string", description: "The message, in Markdown" },
        destination: {
          type: "string",
          description: "Where to deliver it: 'Web Inbox' (default) or a channel from the schedule destinations",
        },
      },
      required: ["subject", "body"],
      additionalProperties: false,
    },
    requireApproval: false,
    execute: (input, context) =>
      Effect.gen(function* () {
        const subject = stringField(input, "subject")?.trim()
        const body = stringField(input, "body")
        if (!subject || body === undefined) {
          return yield* new ToolExecutionError({ message: "subject and body are required strings" })
        }
        const destination = yield* inbox
          .resolveDestination(stringField(input, "destination") ?? "Web Inbox")
          .pipe(
            Effect.catchTag("UnknownDestination", (error) =>
              Effect.fail(
                new ToolExecutionError({ message: `unknown destination ${JSON.stringify(error.destination)}` }),
              ),
            ),
          )
        const message = yield* inbox
          .create({ subject, body, threadId: context.threadId, destination })
          .pipe(Effect.mapError(() => new ToolExecutionError({ message: "the inbox could not store the message" })))
        return { id: message.id, status: message.status }
      }),
  }
  return tool
})

/**
 * The built-in tools, registered as two sources (`time`, `inbox`). Built-ins keep their names as
 * ids (`current_time`, `notify`) and never need approval: they only read or write the owner's own data.
 */
export const layer: Layer.Layer<never, never, ToolRegistry | AppConfig | Inbox> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const registry = yield* ToolRegistry
    const time = yield* currentTime
    const inbox = yield* notify
    yield* registry.register({ id: "time", kind: "builtin", tools: Effect.succeed([time]) })
    yield* registry.register({ id: "inbox", kind: "builtin", tools: Effect.succeed([inbox]) })
  }),
)
