import type { AideClient } from "@aide/client"
import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import { bold, cyan, dim, Failure, green, print, red, UsageError, yellow } from "../Output.js"
import { printable } from "../Printable.js"
import { ask, askKey } from "../Prompt.js"
import { connectLoggedIn } from "../Session.js"

type ChatStream = Awaited<ReturnType<AideClient["chat"]["send"]>>

/** A tool's input or output on one line: a plugin's words, so printable only. */
const short = (value: unknown, max = 160) => {
  const json = typeof value === "string" ? value : JSON.stringify(value)
  const text = json === undefined ? "" : printable(json)
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** A pending decision: a tool call of a run waiting for approval. */
interface Pending {
  readonly runId: string
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
}

/** How one stream ended: finished (maybe with calls to decide), or interrupted by Ctrl-C. */
type Outcome =
  | { readonly _tag: "Finished"; readonly pending: ReadonlyArray<Pending> }
  | { readonly _tag: "Interrupted"; readonly seen: number }

/** What of one answer is on screen: its text so far, the tool calls and results shown. */
interface Shown {
  text: string
  readonly calls: Set<string>
  readonly results: Set<string>
}

const nothingShown = (): Shown => ({ text: "", calls: new Set(), results: new Set() })

/** Writes a stream's chunks as they come: text, tool calls and results, errors. */
class Renderer {
  private midLine = false
  private readonly tools = new Map<string, { name: string; input: unknown }>()

  constructor(private readonly shown: Shown = nothingShown()) {}

  private line(text: string) {
    if (this.midLine) process.stdout.write("\n")
    this.midLine = false
    print(text)
  }

  render(chunk: any, runId: string, pending: Array<Pending>) {
    switch (chunk.type) {
      case "text-delta":
        this.text(chunk.delta)
        break
      case "tool-input-available":
        this.tools.set(chunk.toolCallId, { name: chunk.toolName, input: chunk.input })
        this.call(chunk.toolCallId, chunk.toolName, chunk.input)
        break
      case "tool-approval-request": {
        const tool = this.tools.get(chunk.toolCallId)
        pending.push({
          runId,
          toolCallId: chunk.toolCallId,
          toolName: tool?.name ?? chunk.toolCallId,
          input: tool?.input,
        })
        break
      }
      case "tool-output-available":
        this.result(chunk.toolCallId, chunk.output)
        break
      case "tool-output-error":
        this.line(`  ${red("↳ failed:")} ${printable(chunk.errorText, { multiline: true })}`)
        break
      case "tool-output-denied":
        this.line(`  ${yellow("↳ denied")}`)
        break
      case "error":
        this.line(red(`error: ${printable(chunk.errorText, { multiline: true })}`))
        break
      case "abort":
        this.line(yellow("(stopped)"))
        break
      case "finish":
        if (this.midLine) process.stdout.write("\n")
        this.midLine = false
        break
    }
  }

  text(delta: string) {
    // The model's words may repeat a tool's (a plugin's, a web page's): no control sequences either.
    const shown = printable(delta, { multiline: true })
    this.shown.text += delta
    if (shown === "") return
    if (!this.midLine) process.stdout.write(cyan("aide› "))
    process.stdout.write(shown)
    this.midLine = !shown.endsWith("\n")
  }

  call(toolCallId: string, toolName: string, input: unknown) {
    this.shown.calls.add(toolCallId)
    this.line(`${yellow("⚙")} ${bold(printable(toolName))} ${dim(short(input))}`)
  }

  result(toolCallId: string, output: unknown) {
    this.shown.results.add(toolCallId)
    this.line(`  ${green("↳")} ${dim(short(output))}`)
  }

  /**
   * The part of a finished answer not on screen yet, from the stored message: the answer ended
   * while the resume/stop/quit prompt was open, so no stream is left to resume.
   */
  rest(parts: ReadonlyArray<any>) {
    let text = ""
    for (const part of parts) {
      if (part.type === "text" && typeof part.text === "string") {
        text += part.text
        continue
      }
      const tool = part.type === "dynamic-tool" || (typeof part.type === "string" && part.type.startsWith("tool-"))
      if (!tool || typeof part.toolCallId !== "string") continue
      if (!this.shown.calls.has(part.toolCallId))
        this.call(part.toolCallId, part.toolName ?? part.type.slice("tool-".length), part.input)
      if (part.state === "output-available" && !this.shown.results.has(part.toolCallId))
        this.result(part.toolCallId, part.output)
    }
    // The text shown is a prefix of the stored text: print what follows it.
    this.text(text.startsWith(this.shown.text) ? text.slice(this.shown.text.length) : "")
    this.end()
  }

  end() {
    if (this.midLine) process.stdout.write("\n")
    this.midLine = false
  }
}

/**
 * Follows one stream until it ends or Ctrl-C. The first `skip` chunks were shown already (a
 * resume replays the run from its start).
 */
const follow = async (
  open: (signal: AbortSignal) => Promise<ChatStream | null>,
  shown: Shown,
  skip = 0,
): Promise<Outcome> => {
  const controller = new AbortController()
  const onSigint = () => controller.abort()
  process.once("SIGINT", onSigint)
  const renderer = new Renderer(shown)
  const pending: Array<Pending> = []
  let seen = 0
  try {
    const stream = await open(controller.signal)
    if (stream === null) return { _tag: "Finished", pending }
    let runId = stream.runId
    for await (const chunk of stream.chunks as AsyncIterable<any>) {
      if (chunk.type === "start" && typeof chunk.messageMetadata?.runId === "string")
        runId = chunk.messageMetadata.runId
      if (seen++ < skip) continue
      renderer.render(chunk, runId, pending)
    }
    renderer.end()
    return { _tag: "Finished", pending }
  } catch (error) {
    renderer.end()
    if (controller.signal.aborted) return { _tag: "Interrupted", seen }
    throw error
  } finally {
    process.removeListener("SIGINT", onSigint)
  }
}

/** The parts of the thread's last message when it is the assistant's (none otherwise). */
const lastAnswer = async (client: AideClient, thread: string): Promise<ReadonlyArray<any>> => {
  const detail = (await client.threads.get(thread)) as { messages: ReadonlyArray<{ role: string; parts: Array<any> }> }
  const last = detail.messages.at(-1)
  return last?.role === "assistant" ? last.parts : []
}

/** Runs a turn to its end: approvals asked y/n, Ctrl-C offering to resume or stop. False: leave the chat. */
const converse = async (
  client: AideClient,
  /** The thread, known once the first answer started (a new thread gets its id then). */
  threadOf: () => string,
  open: (signal: AbortSignal) => Promise<ChatStream | null>,
): Promise<boolean> => {
  let next: ((signal: AbortSignal) => Promise<ChatStream | null>) | undefined = open
  let skip = 0
  let shown = nothingShown()
  while (next !== undefined) {
    const outcome = await follow(next, shown, skip)
    const thread = threadOf()
    next = undefined
    skip = 0
    if (outcome._tag === "Interrupted") {
      const answer = await askKey(
        `${yellow("interrupted:")} the answer is still being written. [r]esume, [s]top it, or [q]uit? `,
        ["r", "s", "q"],
        "q",
      )
      if (answer === "r") {
        skip = outcome.seen
        next = async (signal) => {
          const stream = await client.chat.resume(thread, { signal })
          // Finished while the question was open: the rest is in the stored thread.
          if (stream === null) new Renderer(shown).rest(await lastAnswer(client, thread))
          return stream
        }
        continue
      }
      if (answer === "s") {
        await client.chat.stop(thread)
        print(yellow("stopped"))
        return true
      }
      print(dim(`left running; continue with: aide chat --thread ${thread}`))
      return false
    }
    shown = nothingShown()
    for (const call of outcome.pending) {
      // One key, no Enter, like the Ctrl-C menu: text typed ahead while the answer streamed
      // arrives as several characters at once and is not taken for a decision.
      const answer = await askKey(
        `${yellow("?")} allow ${bold(printable(call.toolName))} ${dim(short(call.input))}? ${dim("[y]es / [n]o, one key")} `,
        ["y", "n"],
        "",
      )
      if (answer === "") {
        print(dim(`undecided; decide later with: aide chat --thread ${thread}`))
        return false
      }
      const approved = answer === "y"
      next = (signal) =>
        client.chat.approve({ runId: call.runId, threadId: thread, toolCallId: call.toolCallId, approved, signal })
    }
  }
  return true
}

export const chat: Command = {
  name: "chat",
  summary: "talk with the assistant in the terminal",
  usage: `aide chat [--thread <id> | --new] [message]

An interactive chat: type a message, the answer streams in; tool calls and their results are
shown, and calls that need approval are asked with one key, y or n (no Enter; text typed ahead
is not taken for an answer; Ctrl-C or Ctrl-D leaves it undecided). Ctrl-C while an answer streams stops waiting
and asks, one key without Enter: r resumes (where the screen left it, even when the answer
finished meanwhile), s stops the run, q leaves it running (so do Ctrl-C and Ctrl-D); any other
key asks again. At the you› prompt, Ctrl-C or Ctrl-D on an empty line leaves.
With a message argument, sends that one message and exits after the answer (for scripts).

  --thread <id>   continue this thread (a running answer in it is resumed first)
  --new           start a new thread (the default)`,
  run: async (argv) => {
    const { values, positionals } = parse(argv, { thread: { type: "string" }, new: { type: "boolean" } }, 1)
    if (values.thread !== undefined && values.new) throw new UsageError("--thread or --new, not both")
    const { client } = connectLoggedIn(values.url)
    let threadId = values.thread
    if (threadId !== undefined) {
      const detail = (await client.threads.get(threadId).catch((error: { status?: number }) => {
        if (error.status === 404) throw new Failure(`no thread ${threadId} (aide threads lists them)`)
        throw error
      })) as any
      print(dim(`thread ${threadId}: ${detail.thread?.title ?? "(untitled)"}`))
      // An answer still running (left after Ctrl-C, or from another client): follow it first.
      const id = threadId
      if (
        !(await converse(
          client,
          () => id,
          (signal) => client.chat.resume(id, { signal }),
        ))
      )
        return 0
    }
    const once = positionals[0]
    for (;;) {
      const text = once ?? (await ask(green("you› ")))
      if (text === undefined) break
      if (text.trim() === "") continue
      const keepGoing = await converse(
        client,
        () => threadId ?? "",
        async (signal) => {
          const stream = await client.chat.send({ text, ...(threadId === undefined ? {} : { threadId }), signal })
          threadId = stream.threadId
          return stream
        },
      )
      if (!keepGoing || once !== undefined) break
    }
    if (threadId !== undefined && once === undefined) print(dim(`thread ${threadId}`))
    return 0
  },
}
