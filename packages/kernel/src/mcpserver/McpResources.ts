import { createHash } from "node:crypto"
import { Effect, Option } from "effect"
import type { McpToolName } from "../config/McpEndpointConfig.js"
import { Inbox } from "../inbox/Inbox.js"
import { Memory } from "../memory/Memory.js"
import { Scheduler } from "../scheduler/Scheduler.js"
import { Threads } from "../threads/Threads.js"

/**
 * What `/mcp` shows as resources and prompts. Each resource is readable only while the tool
 * reading the same data is exposed to the client (`memory_read`, `inbox_list`,
 * `threads_search`; the prompts with `schedule_list`): a client sees through resources exactly
 * what it could read through tools.
 */

export const workingMemoryUri = "aide://memory/working"
export const observationsUri = "aide://memory/observations"
export const inboxUri = "aide://inbox"
export const threadTemplate = "aide://threads/{id}"
const threadPattern = /^aide:\/\/threads\/([\w.:-]{1,100})$/

interface Content {
  readonly mimeType: string
  readonly text: string
}

const fixed: ReadonlyArray<{
  readonly uri: string
  readonly name: string
  readonly title: string
  readonly description: string
  readonly mimeType: string
  readonly tool: McpToolName
}> = [
  {
    uri: workingMemoryUri,
    name: "working-memory",
    title: "Working memory",
    description: "Aide's working memory about the owner (Markdown)",
    mimeType: "text/markdown",
    tool: "memory_read",
  },
  {
    uri: observationsUri,
    name: "observations",
    title: "Observations",
    description: "What Aide observed across conversations",
    mimeType: "text/markdown",
    tool: "memory_read",
  },
  {
    uri: inboxUri,
    name: "inbox",
    title: "Inbox",
    description: "The owner's active inbox messages (JSON)",
    mimeType: "application/json",
    tool: "inbox_list",
  },
]

/** The fixed resources a client with `allowed` tools may read. */
export const listResources = (allowed: ReadonlyArray<string>) =>
  fixed.filter((resource) => allowed.includes(resource.tool)).map(({ tool: _, ...resource }) => resource)

/** The thread template, when `threads_search` is allowed. */
export const listTemplates = (allowed: ReadonlyArray<string>) =>
  allowed.includes("threads_search")
    ? [
        {
          uriTemplate: threadTemplate,
          name: "thread",
          title: "Conversation",
          description: "A conversation with Aide by id: its messages (JSON)",
          mimeType: "application/json",
        },
      ]
    : []

/** The latest threads, listed as resources of the template. */
export const listThreads = Effect.flatMap(Threads, (threads) => threads.list({ page: 0, perPage: 20 })).pipe(
  Effect.map((page) =>
    page.threads.map((thread) => ({
      uri: `aide://threads/${thread.id}`,
      name: thread.title ?? thread.id,
      mimeType: "application/json",
    })),
  ),
)

const json = (value: unknown): Content => ({ mimeType: "application/json", text: JSON.stringify(value) })

/** The content of `uri`, or None when it is no resource of a client with `allowed` tools (or does not exist). */
export const read = (uri: string, allowed: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const resource = fixed.find((candidate) => candidate.uri === uri)
    if (resource !== undefined && !allowed.includes(resource.tool)) return Option.none<Content>()
    if (uri === workingMemoryUri) {
      const text = yield* (yield* Memory).workingMemory
      return Option.some<Content>({ mimeType: "text/markdown", text: text ?? "" })
    }
    if (uri === observationsUri) {
      const text = yield* (yield* Memory).observations()
      return Option.some<Content>({ mimeType: "text/markdown", text: text ?? "" })
    }
    if (uri === inboxUri) return Option.some(json({ messages: yield* (yield* Inbox).list({ archived: false }) }))
    const thread = threadPattern.exec(uri)?.[1]
    if (thread === undefined || !allowed.includes("threads_search")) return Option.none<Content>()
    const detail = yield* (yield* Threads).detail(thread).pipe(Effect.option)
    return Option.map(detail, json)
  }).pipe(Effect.orDie)

/** A digest of `uri`'s content: a subscription is told when it changes. */
export const fingerprint = (uri: string) =>
  Effect.map(read(uri, ["memory_read", "inbox_list", "threads_search"]), (content) =>
    createHash("sha256")
      .update(Option.isSome(content) ? content.value.text : "")
      .digest("base64url"),
  )

/** A scheduled task's prompt as an MCP prompt: named `task-<id>`. */
const promptName = (id: string) => `task-${id}`

export const listPrompts = Effect.flatMap(Scheduler, (scheduler) => scheduler.list).pipe(
  Effect.map((schedule) =>
    schedule.tasks.map((task) => ({
      name: promptName(task.id),
      title: task.name,
      description: `The prompt of the scheduled task "${task.name}"`,
    })),
  ),
  Effect.orDie,
)

export const getPrompt = (name: string) =>
  Effect.flatMap(Scheduler, (scheduler) => scheduler.list).pipe(
    Effect.map((schedule) =>
      Option.map(Option.fromNullable(schedule.tasks.find((task) => promptName(task.id) === name)), (task) => ({
        description: task.name,
        messages: [{ role: "user" as const, content: { type: "text" as const, text: task.prompt } }],
      })),
    ),
    Effect.orDie,
  )
