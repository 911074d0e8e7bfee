import type { LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { describe, expect, it } from "@effect/vitest"
import { convertToModelMessages, dynamicTool, jsonSchema, type ToolSet, type UIMessage, type UIMessageChunk } from "ai"
import { Effect, Fiber, Layer } from "effect"
import { AgentStep, type AgentStepInput } from "../src/chat/AgentStep.js"
import * as AiSdkAgentStep from "../src/chat/AiSdkAgentStep.js"
import * as Chat from "../src/chat/Chat.js"
import { ChatModelError } from "../src/chat/ChatErrors.js"
import type { StoredMessage } from "../src/threads/Threads.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import {
  answer,
  chatKernel,
  chunksOf,
  eventually,
  liveModel,
  messagesOf,
  scriptedModel,
  send,
  textOf,
  usage,
  useModel,
} from "./support/chat.js"

/** `AiSdkAgentStep.layer` run directly: the default step, over the AI SDK's mock models. */
const runDefault = (input: Partial<AgentStepInput> & Pick<AgentStepInput, "model">) =>
  Effect.gen(function* () {
    const step = yield* AgentStep
    const history = input.history ?? [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] }]
    const tools = input.tools ?? {}
    const started = yield* step.run({
      threadId: "t1",
      runId: "r1",
      system: "You are a test.",
      history,
      messages: yield* Effect.promise(() => convertToModelMessages(history as Array<UIMessage>, { tools })),
      tools,
      maxSteps: 5,
      maxRetries: 0,
      abortSignal: new AbortController().signal,
      messageId: "a1",
      metadata: { runId: "r1", threadId: "t1" },
      onProviderError: () => {},
      ...input,
    })
    const chunks: Array<UIMessageChunk> = []
    yield* Effect.promise(async () => {
      for await (const chunk of started.stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk)
    })
    return { chunks, outcome: started.outcome?.() }
  }).pipe(Effect.provide(AiSdkAgentStep.layer))

const toolCall = (toolName: string): Array<LanguageModelV3StreamPart> => [
  { type: "stream-start", warnings: [] },
  { type: "tool-call", toolCallId: "call-1", toolName, input: '{"door":"front"}' },
  { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
]

/** A toolset of one tool that needs approval, counting its runs. */
const unlockTools = () => {
  const ran: Array<unknown> = []
  const tools: ToolSet = {
    home_unlock: dynamicTool({
      description: "Unlocks a door",
      inputSchema: jsonSchema({ type: "object" }),
      needsApproval: () => true,
      execute: async (input) => {
        ran.push(input)
        return { unlocked: true }
      },
    }),
  }
  return { tools, ran }
}

describe("AiSdkAgentStep: the default agent step (the AI SDK's streamText)", () => {
  it.effect("streams the answer from `start` (the message id and the run's metadata) to `finish`, and reports it", () =>
    Effect.gen(function* () {
      const { chunks, outcome } = yield* runDefault({
        model: { model: scriptedModel(answer("Hel", "lo")), settings: {} },
      })
      expect(chunks[0]).toEqual({ type: "start", messageId: "a1", messageMetadata: { runId: "r1", threadId: "t1" } })
      expect(chunks.at(-1)).toMatchObject({ type: "finish" })
      expect(outcome?.responseMessage?.parts).toContainEqual(expect.objectContaining({ type: "text", text: "Hello" }))
      expect(outcome).toMatchObject({ aborted: false, finishReason: "stop", usage: { inputTokens: 10 } })
    }),
  )

  it.effect("a call whose tool needs approval is not run: the stream asks for approval and ends", () =>
    Effect.gen(function* () {
      const { tools, ran } = unlockTools()
      const { chunks, outcome } = yield* runDefault({
        model: { model: scriptedModel(toolCall("home_unlock")), settings: {} },
        tools,
      })
      expect(chunks).toContainEqual(expect.objectContaining({ type: "tool-approval-request", toolCallId: "call-1" }))
      expect(ran).toEqual([])
      expect(outcome?.responseMessage?.parts).toContainEqual(
        expect.objectContaining({ toolCallId: "call-1", state: "approval-requested" }),
      )
    }),
  )

  it.effect("continues the paused message of the history: the approved call runs, the message keeps its id", () =>
    Effect.gen(function* () {
      const { tools, ran } = unlockTools()
      const paused: StoredMessage = {
        id: "a0",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "dynamic-tool",
            toolName: "home_unlock",
            toolCallId: "call-1",
            state: "approval-responded",
            input: { door: "front" },
            approval: { id: "ap-1", approved: true },
          },
        ],
      }
      const { chunks, outcome } = yield* runDefault({
        model: { model: scriptedModel(answer("Open.")), settings: {} },
        tools,
        history: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Open the door" }] }, paused],
      })
      expect(ran).toEqual([{ door: "front" }])
      expect(chunks[0]).toMatchObject({ type: "start", messageId: "a0" })
      expect(chunks).toContainEqual(expect.objectContaining({ type: "tool-output-available", toolCallId: "call-1" }))
      expect(outcome?.responseMessage?.id).toBe("a0")
    }),
  )

  it.effect("an aborted signal ends the stream, reported as aborted", () =>
    Effect.gen(function* () {
      const live = liveModel()
      const controller = new AbortController()
      const reading = yield* Effect.fork(
        runDefault({ model: { model: live.model, settings: {} }, abortSignal: controller.signal }),
      )
      yield* live.push(
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "0" },
        { type: "text-delta", id: "0", delta: "Once" },
      )
      yield* eventually(live.called)
      controller.abort()
      const { chunks, outcome } = yield* Fiber.join(reading)
      expect(chunks.map((chunk) => chunk.type)).toContain("abort")
      expect(outcome?.aborted).toBe(true)
    }),
  )
})

/** A step of an embedder's own: answers with the chunks `script` gives, keeping what it was given. */
const ownStep = (script: (input: AgentStepInput) => ReadableStream<UIMessageChunk> | ChatModelError) => {
  const inputs: Array<AgentStepInput> = []
  const layer = Layer.succeed(
    AgentStep,
    AgentStep.of({
      run: (input) =>
        Effect.suspend(() => {
          inputs.push(input)
          const stream = script(input)
          return stream instanceof ChatModelError ? Effect.fail(stream) : Effect.succeed({ stream })
        }),
    }),
  )
  return { layer, inputs }
}

/** A stream of `chunks`, then (unless `hold`) its end; `hold` keeps it open until its signal aborts. */
const streamOf = (chunks: ReadonlyArray<UIMessageChunk>, hold?: AbortSignal) =>
  new ReadableStream<UIMessageChunk>({
    start: (controller) => {
      for (const chunk of chunks) controller.enqueue(chunk)
      if (hold === undefined) controller.close()
      else hold.addEventListener("abort", () => controller.close())
    },
  })

const textAnswer = (input: AgentStepInput, text: string): ReadonlyArray<UIMessageChunk> => [
  { type: "start", messageId: input.messageId, messageMetadata: input.metadata },
  { type: "start-step" },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
]

describe("Chat with an AgentStep of its own", () => {
  it.effect("the step gets what Aide built for the turn; its chunks reach clients and the answer is stored", () => {
    const own = ownStep((input) =>
      streamOf([
        ...textAnswer(input, "Scripted."),
        { type: "text-end", id: "t" },
        { type: "finish-step" },
        { type: "finish" },
      ]),
    )
    return Effect.gen(function* () {
      const model = yield* useModel(scriptedModel())
      yield* chunksOf(yield* send("t1", "Hello"))
      const run = yield* send("t1", "Again")
      const chunks = yield* chunksOf(run)
      expect(chunks.map((chunk) => chunk.type)).toEqual([
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "finish-step",
        "finish",
      ])
      const input = own.inputs[1]!
      expect(input.model.model).toBe(model)
      expect(input.system).toContain("The current time is")
      expect(input.history.map(textOf)).toEqual(["Hello", "Scripted.", "Again"])
      expect(input.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"])
      expect(input.abortSignal.aborted).toBe(false)
      expect(input.metadata).toEqual({ runId: run.runId, threadId: "t1" })
      expect(model.doStreamCalls).toHaveLength(0)
      // No message reported by the step: the one its clients built is stored, with the run's metadata.
      const stored = (yield* messagesOf("t1")).at(-1)!
      expect(stored).toMatchObject({ id: input.messageId, role: "assistant", metadata: { runId: run.runId } })
      expect(textOf(stored)).toBe("Scripted.")
    }).pipe(Effect.provide(chatKernel({}, own.layer)))
  })

  it.effect("a step that fails to start fails send with its ChatModelError; the owner's message stays stored", () => {
    const own = ownStep(() => new ChatModelError({ message: "the agent service is down" }))
    return Effect.gen(function* () {
      const failed = yield* Effect.flip(send("t1", "Hello"))
      expect(failed).toMatchObject({ _tag: "ChatModelError", message: "the agent service is down" })
      expect((yield* messagesOf("t1")).map(textOf)).toEqual(["Hello"])
    }).pipe(Effect.provide(chatKernel({}, own.layer)))
  })

  it.effect("stop aborts the step's signal; what it sent is stored, marked stopped", () => {
    const own = ownStep((input) => streamOf(textAnswer(input, "Once upon"), input.abortSignal))
    return Effect.gen(function* () {
      const run = yield* send("t1", "A story")
      const chat = yield* Chat.Chat
      expect(yield* chat.stop("t1")).toBe(true)
      yield* chunksOf(run)
      expect(own.inputs[0]!.abortSignal.aborted).toBe(true)
      const stored = (yield* messagesOf("t1")).at(-1)!
      expect(textOf(stored)).toBe("Once upon")
      expect(stored.metadata).toMatchObject({ interrupted: "stopped" })
    }).pipe(Effect.provide(chatKernel({}, own.layer)))
  })

  it.effect(
    "a step cannot skip the owner: a call needing approval, run without it, fails and the tool never runs",
    () => {
      const ran: Array<unknown> = []
      const own = ownStep((input) => {
        const attempt = Promise.resolve(
          input.tools.home_unlock!.execute!({}, { toolCallId: "unasked", messages: [...input.messages] }),
        ).then(
          () => "ran",
          (error: unknown) => String(error),
        )
        return new ReadableStream<UIMessageChunk>({
          start: async (controller) => {
            for (const chunk of textAnswer(input, await attempt)) controller.enqueue(chunk)
            controller.enqueue({ type: "text-end", id: "t" })
            controller.enqueue({ type: "finish" })
            controller.close()
          },
        })
      })
      return Effect.gen(function* () {
        const registry = yield* ToolRegistry.ToolRegistry
        yield* registry.register({
          id: "home",
          kind: "plugin",
          tools: Effect.succeed([
            {
              name: "unlock",
              description: "Unlocks the door",
              inputSchema: { type: "object" },
              requireApproval: true,
              execute: (input: unknown) => Effect.sync(() => ran.push(input)),
            },
          ]),
        })
        yield* chunksOf(yield* send("t1", "Open the door"))
        expect(ran).toEqual([])
        expect(textOf((yield* messagesOf("t1")).at(-1))).toContain("needs the owner's approval")
      }).pipe(Effect.scoped, Effect.provide(chatKernel({}, own.layer)))
    },
  )
})
