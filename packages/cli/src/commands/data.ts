import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import { bold, dim, green, print, printJson, UsageError } from "../Output.js"
import { printable } from "../Printable.js"
import { connectLoggedIn } from "../Session.js"
import { when } from "../When.js"

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

Lists the threads, most recent first (GET /api/threads): id, last update, title. A thread with
branches is shown by its most recent branch (the one \`aide chat --thread <id>\` continues) and
that branch's title, marked "branch of <root id>". Times are local ("5 min ago", "yesterday
14:02"); --json prints the API's list as is. A thread whose answer is still streaming is marked
"streaming".`,
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
    // A branch's title is only in its own detail: read it for the families whose latest is a branch.
    const branchTitles = new Map<string, string | null>()
    await Promise.all(
      list.threads
        .filter((thread) => thread.activeThreadId !== thread.id)
        .map(async (thread) => {
          const detail = await client.threads.get(thread.activeThreadId).catch(() => undefined)
          if (detail !== undefined) branchTitles.set(thread.activeThreadId, detail.thread.title ?? null)
        }),
    )
    for (const thread of list.threads) {
      const onBranch = thread.activeThreadId !== thread.id && branchTitles.has(thread.activeThreadId)
      const id = onBranch ? thread.activeThreadId : thread.id
      const title = (onBranch ? branchTitles.get(id) : undefined) ?? thread.title ?? "(untitled)"
      const streaming = thread.threadIds.some((member) => active.has(member)) ? green(" streaming") : ""
      const branch = onBranch ? dim(` (branch of ${thread.id})`) : ""
      // Titles are the model's words (it may repeat a tool's, a plugin's): printable only.
      print(`${id}  ${dim(when(thread.updatedAt).padEnd(16))}  ${bold(printable(title))}${branch}${streaming}`)
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
      print(
        `${message.read ? " " : green("●")} ${message.id}  ${dim(when(message.createdAt).padEnd(16))}  ${bold(printable(message.subject))}`,
      )
    return 0
  },
}
