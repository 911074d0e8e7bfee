/**
 * An agent step of your own behind Aide: a scripted loop that decides what to do from the
 * owner's words, calls Aide's tools itself and writes the AI SDK's UI message stream by hand —
 * no `streamText`, no model. Put Mastra, LangGraph or your own agent where `decide` is: Aide
 * keeps the threads, the streaming with resume, the approvals, memory and auth around it.
 */
import { randomUUID } from "node:crypto"
import { AgentStep } from "@aide/kernel"
import type { Tool, UIMessageChunk } from "ai"
import { Effect, Layer } from "effect"

/** What the loop does next: call a tool, or answer (which ends the step). */
type Move = { readonly tool: string; readonly input: Record<string, unknown> } | { readonly answer: string }

/** A call of this turn and how it ended. */
interface Done {
  readonly tool: string
  readonly output: unknown
  readonly denied: boolean
}

/** The text between `<working_memory>` tags of the system prompt Aide built (its markup escaped). */
const workingMemory = (system: string) =>
  (/<working_memory>\n([\s\S]*?)\n<\/working_memory>/.exec(system)?.[1] ?? "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")

/**
 * The script: the "agent" of this example. "remember …" writes Aide's working memory through its
 * built-in tool; "what do you remember" reads it back from the system prompt; "door" needs a
 * tool the owner must approve; anything else is echoed.
 */
const decide = (words: string, system: string, done: ReadonlyArray<Done>): Move => {
  const called = (tool: string) => done.find((call) => call.tool === tool)
  const remember = /^remember (.+)$/i.exec(words)
  if (remember !== null) {
    if (called("update_working_memory") === undefined) {
      return { tool: "update_working_memory", input: { action: "append", text: remember[1] } }
    }
    return { answer: "Noted." }
  }
  if (/what do you remember/i.test(words)) return { answer: `I remember: ${workingMemory(system)}` }
  if (/door/i.test(words)) {
    const unlock = called("home_unlock_door")
    if (unlock === undefined) return { tool: "home_unlock_door", input: { door: "front" } }
    return { answer: unlock.denied ? "I left the front door locked." : "The front door is open." }
  }
  return { answer: `You said: ${words}` }
}

/** The text of the owner's last message. */
const ownerWords = (history: AgentStep.AgentStepInput["history"]) => {
  const last = history.findLast((message) => message.role === "user")
  return (last?.parts ?? [])
    .flatMap((part) => ((part as { type?: unknown }).type === "text" ? [(part as { text: string }).text] : []))
    .join(" ")
}

interface ToolPart {
  readonly type: string
  readonly toolCallId: string
  readonly toolName?: string
  readonly input?: unknown
  readonly state: string
  readonly approval?: { readonly approved?: boolean }
}

/** The calls the owner decided on, when the history ends with the message this step continues. */
const decidedCalls = (message: AgentStep.AgentStepInput["history"][number] | undefined) =>
  message?.role !== "assistant"
    ? []
    : (message.parts as ReadonlyArray<ToolPart>).filter((part) => part.state === "approval-responded")

export interface ScriptedStepOptions {
  /** Awaited before each word of an answer after the first: a typing pace (tests hold it to read a stream mid-way). */
  readonly beforeWord?: () => Promise<void>
}

/** The loop, as UI message chunks: one model step per move, up to `maxSteps`. */
async function* loop(input: AgentStep.AgentStepInput, options: ScriptedStepOptions): AsyncGenerator<UIMessageChunk> {
  const signal = input.abortSignal
  const last = input.history.at(-1)
  // A step after the owner's decisions continues the paused message: same id.
  yield {
    type: "start",
    messageId: last?.role === "assistant" ? last.id : input.messageId,
    messageMetadata: input.metadata,
  }
  const words = ownerWords(input.history)
  const done: Array<Done> = []
  /** Runs a call through Aide's tool (its bounds, sandbox and logs); the chunk reporting it. */
  const run = async (tool: string, toolCallId: string, toolInput: unknown): Promise<UIMessageChunk> => {
    const execute = (input.tools[tool] as Tool | undefined)?.execute
    try {
      if (execute === undefined) throw new Error(`no tool ${tool}`)
      const output: unknown = await execute(toolInput, {
        toolCallId,
        messages: [...input.messages],
        abortSignal: signal,
      })
      done.push({ tool, output, denied: false })
      return { type: "tool-output-available", toolCallId, output, dynamic: true }
    } catch (error) {
      done.push({ tool, output: undefined, denied: false })
      return { type: "tool-output-error", toolCallId, errorText: String(error), dynamic: true }
    }
  }
  for (const call of decidedCalls(last)) {
    const tool = call.toolName ?? call.type.slice("tool-".length)
    yield { type: "start-step" }
    if (call.approval?.approved === true) {
      yield await run(tool, call.toolCallId, call.input)
    } else {
      yield { type: "tool-output-denied", toolCallId: call.toolCallId }
      done.push({ tool, output: undefined, denied: true })
    }
    yield { type: "finish-step" }
  }
  for (let step = 0; step < input.maxSteps && !signal.aborted; step++) {
    const move = decide(words, input.system, done)
    yield { type: "start-step" }
    if ("answer" in move) {
      yield { type: "text-start", id: "answer" }
      for (const [index, word] of move.answer.split(" ").entries()) {
        if (index > 0) await options.beforeWord?.()
        // Stopped by the owner (or cut by Aide's bounds): end here; Aide keeps what was sent.
        if (signal.aborted) return
        yield { type: "text-delta", id: "answer", delta: index === 0 ? word : ` ${word}` }
      }
      yield { type: "text-end", id: "answer" }
      yield { type: "finish-step" }
      yield { type: "finish", finishReason: "stop" }
      return
    }
    const toolCallId = randomUUID()
    yield { type: "tool-input-available", toolCallId, toolName: move.tool, input: move.input, dynamic: true }
    const tool = input.tools[move.tool] as Tool | undefined
    const needsApproval =
      typeof tool?.needsApproval === "function"
        ? await tool.needsApproval(move.input, { toolCallId, messages: [...input.messages] })
        : tool?.needsApproval === true
    if (needsApproval) {
      // Not run: Aide stores the message, suspends the run and asks the owner.
      yield { type: "tool-approval-request", approvalId: randomUUID(), toolCallId }
      yield { type: "finish-step" }
      yield { type: "finish", finishReason: "tool-calls" }
      return
    }
    yield await run(move.tool, toolCallId, move.input)
    yield { type: "finish-step" }
  }
  yield { type: "finish", finishReason: "length" }
}

/** An async iterable as the stream Aide reads: pulled chunk by chunk, ended when Aide cancels it. */
const streamOf = (chunks: AsyncGenerator<UIMessageChunk>) =>
  new ReadableStream<UIMessageChunk>({
    pull: async (controller) => {
      const next = await chunks.next()
      if (next.done === true) controller.close()
      else controller.enqueue(next.value)
    },
    cancel: async () => {
      await chunks.return(undefined)
    },
  })

/** The scripted step as Aide's `AgentStep`: `Kernel.layer({ agentStep: ScriptedStep.layer() })`. */
export const layer = (options: ScriptedStepOptions = {}): Layer.Layer<AgentStep.AgentStep> =>
  Layer.succeed(
    AgentStep.AgentStep,
    AgentStep.AgentStep.of({
      run: (input) => Effect.sync(() => ({ stream: streamOf(loop(input, options)) })),
    }),
  )
