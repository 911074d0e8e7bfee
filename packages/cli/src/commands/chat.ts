import type { AideClient } from "@aide/client"
import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import { bold, cyan, dim, Failure, green, print, red, UsageError, yellow } from "../Output.js"
import { ask } from "../Prompt.js"
import { connectLoggedIn } from "../Session.js"

type ChatStream = Awaited<ReturnType<AideClient["chat"]["send"]>>

const short = (value: unknown, max = 160) => {
  const text = typeof value === "string" ? value : JSON.stringify(value)
  return text === undefined ? "" : text.length > max ? `${text.slice(0, max)}…` : text
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

/** Writes a stream's chunks as they come: text, tool calls and results, errors. */
class Renderer {
  private midLine = false
  private readonly tools = new Map<string, { name: string; input: unknown }>()

  private line(text: string) {
    if (this.midLine) process.stdout.write("\n")
    this.midLine = false
    print(text)
  }

  render(chunk: any, runId: string, pending: Array<Pending>) {
    switch (chunk.type) {
      case "text-delta":
        if (!this.midLine) process.stdout.write(cyan("aide› "))
        process.stdout.write(chunk.delta)
        this.midLine = !chunk.delta.endsWith("\n")
        break
      case "tool-input-available":
        this.tools.set(chunk.toolCallId, { name: chunk.toolName, input: chunk.input })
        this.line(`${yellow("⚙")} ${bold(chunk.toolName)} ${dim(short(chunk.input))}`)
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
        this.line(`  ${green("↳")} ${dim(short(chunk.output))}`)
        break
      case "tool-output-error":
        this.line(`  ${red("↳ failed:")} ${chunk.errorText}`)
        break
      case "tool-output-denied":
        this.line(`  ${yellow("↳ denied")}`)
        break
      case "error":
        this.line(red(`error: ${chunk.errorText}`))
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

  end() {
    if (this.midLine) process.stdout.write("\n")
    this.midLine = false
  }
}

/**
 * Follows one stream until it ends or Ctrl-C. The first `skip` chunks were shown already (a
 * resume replays the run from its start).
 */
const follow = async (open: (signal: AbortSignal) => Promise<ChatStream | null>, skip = 0): Promise<Outcome> => {
  const controller = new AbortController()
  const onSigint = () => controller.abort()
  process.once("SIGINT", onSigint)
  const renderer = new Renderer()
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

/** Runs a turn to its end: approvals asked y/n, Ctrl-C offering to resume or stop. False: leave the chat. */
const converse = async (
  client: AideClient,
  /** The thread, known once the first answer started (a new thread gets its id then). */
  threadOf: () => string,
  open: (signal: AbortSignal) => Promise<ChatStream | null>,
): Promise<boolean> => {
  let next: ((signal: AbortSignal) => Promise<ChatStream | null>) | undefined = open
  let skip = 0
  while (next !== undefined) {
    const outcome = await follow(next, skip)
    const thread = threadOf()
    next = undefined
    skip = 0
    if (outcome._tag === "Interrupted") {
      const answer = (
        await ask(`${yellow("interrupted:")} the answer is still being written. [r]esume, [s]top it, or [q]uit? `)
      )
        ?.trim()
        .toLowerCase()
      if (answer === "r" || answer === "resume" || answer === "") {
        skip = outcome.seen
        next = (signal) => client.chat.resume(thread, { signal })
        continue
      }
      if (answer === "s" || answer === "stop") {
        await client.chat.stop(thread)
        print(yellow("stopped"))
        return true
      }
      print(dim(`left running; continue with: aide chat --thread ${thread}`))
      return false
    }
    for (const call of outcome.pending) {
      const answer = await ask(`${yellow("?")} allow ${bold(call.toolName)} ${dim(short(call.input))}? [y/n] `)
      if (answer === undefined) {
        print(dim(`undecided; decide later with: aide chat --thread ${thread}`))
        return false
      }
      const approved = /^y(es)?$/i.test(answer.trim())
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
shown, and calls that need approval are asked y/n. Ctrl-C while an answer streams stops waiting
and offers to resume it or stop the run; at the prompt, Ctrl-C or an empty line with Ctrl-D leaves.
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
