import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import { bold, dim, green, print, printJson, UsageError } from "../Output.js"
import { connectLoggedIn } from "../Session.js"

/** The value at a dotted path (`models.operator.model`) of a JSON document. */
const at = (document: unknown, path: string): unknown =>
  path === ""
    ? document
    : path.split(".").reduce<any>((value, key) => (value == null ? undefined : value[key]), document)

/** `{ a: { b: value } }` for `a.b`: the merge patch that sets one path. */
const patchFor = (path: string, value: unknown): Record<string, unknown> =>
  path
    .split(".")
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>

export const config: Command = {
  name: "config",
  summary: "read or change the server's config (get [path] | set <path> <json>)",
  usage: `aide config get [path] | aide config set <path> <json-value>

get   prints the config (GET /api/config), or the value at a dotted path, as JSON.
set   sends { <path>: <value> } as a merge patch (PATCH /api/config) and prints the new value;
      <json-value> is JSON (a bare word is taken as a string); null removes the key.

  aide config get models.operator
  aide config set models.operator '{"provider":"openai","model":"gpt-4.1-mini"}'`,
  run: async (argv) => {
    const { values, positionals } = parse(argv, {}, 3)
    const [verb, path, raw] = positionals
    if (verb === "get") {
      if (raw !== undefined) throw new UsageError(`unexpected argument: ${raw}`)
      const { client } = connectLoggedIn(values.url)
      const value = at(await client.config.get(), path ?? "")
      if (value === undefined) throw new UsageError(`no config at ${path}`)
      printJson(value)
      return 0
    }
    if (verb === "set") {
      if (path === undefined || raw === undefined) throw new UsageError("aide config set <path> <json-value>")
      let value: unknown
      try {
        value = JSON.parse(raw)
      } catch {
        value = raw
      }
      const { client } = connectLoggedIn(values.url)
      const updated = await client.config.patch(patchFor(path, value) as Parameters<typeof client.config.patch>[0])
      printJson(at(updated, path) ?? null)
      return 0
    }
    throw new UsageError(verb === undefined ? "get or set?" : `unknown subcommand: ${verb}`)
  },
}

export const threads: Command = {
  name: "threads",
  summary: "list the conversation threads",
  usage: `aide threads [--json]

Lists the threads, most recent first (GET /api/threads): id, title, last update. A thread whose
answer is still streaming is marked "streaming"; continue one with aide chat --thread <id>.`,
  run: async (argv) => {
    const { values } = parse(argv, {})
    const { client } = connectLoggedIn(values.url)
    const list = await client.threads.list({ perPage: false })
    if (values.json) {
      printJson(list)
      return 0
    }
    const active = new Set<string>(list.activeStreamIds ?? [])
    if (list.threads.length === 0) print(dim("no threads yet: start one with aide chat"))
    for (const thread of list.threads) {
      const streaming = thread.threadIds.some((id) => active.has(id)) ? green(" streaming") : ""
      print(`${thread.id}  ${dim(thread.updatedAt)}  ${bold(thread.title ?? "(untitled)")}${streaming}`)
    }
    return 0
  },
}

export const inbox: Command = {
  name: "inbox",
  summary: "list the inbox messages",
  usage: `aide inbox [--unread] [--archived] [--json]

Lists the inbox (GET /api/inbox), newest first: scheduled tasks' results and the agent's messages.

  --unread     only the messages not read yet
  --archived   the archived messages instead`,
  run: async (argv) => {
    const { values } = parse(argv, { unread: { type: "boolean" }, archived: { type: "boolean" } })
    const { client } = connectLoggedIn(values.url)
    const listed = await client.inbox.list(values.archived ? { archived: true } : {})
    const messages = listed.filter((message) => !values.unread || !message.read)
    if (values.json) {
      printJson({ messages })
      return 0
    }
    if (messages.length === 0) print(dim(values.unread ? "no unread messages" : "the inbox is empty"))
    for (const message of messages)
      print(`${message.read ? " " : green("●")} ${message.id}  ${dim(message.createdAt)}  ${bold(message.subject)}`)
    return 0
  },
}
