import type { ToolSet } from "ai"
import { Cause, Context, Effect, Exit, Layer, Runtime, Stream } from "effect"
import {
  distinctId,
  type ToolDefinition,
  ToolExecutionError,
  ToolRegistry,
  type ToolSource,
  toolId,
} from "./ToolRegistry.js"

/** What a run's toolset is built for. */
export interface RunToolsContext {
  readonly threadId: string
  readonly runId: string
  /**
   * Tool calls the owner approved while the run was paused: approval was the policy then, so it
   * is now, whatever the config says meanwhile (a call approved under `requireApproval: true`
   * still runs if the server's policy was switched off; a denied call never runs).
   */
  readonly approvedCalls?: ReadonlyArray<{ readonly toolCallId: string; readonly toolName: string }>
}

/** One tool as the model sees it. */
export interface ToolInfo {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly sourceId: string
  readonly requireApproval: boolean
}

/**
 * Assembles the tools of a run from the `ToolRegistry` (built-ins, MCP servers, plugins) as AI SDK
 * tools keyed by their stable ids. Approval is declared per tool (`needsApproval`), so the AI SDK
 * pauses the step on such a call and the run is suspended by `Chat`.
 */
export class Tools extends Context.Tag("@aide/kernel/Tools")<
  Tools,
  {
    readonly forRun: (context: RunToolsContext) => Effect.Effect<ToolSet>
    /** Every tool available now. */
    readonly list: Effect.Effect<ReadonlyArray<ToolInfo>>
  }
>() {}

const loadAi = () => import("ai")

const failureMessage = (cause: Cause.Cause<{ readonly message: string }>) => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return failure.value.message
  if (Cause.isInterruptedOnly(cause)) return "the tool call was cancelled"
  return "the tool failed unexpectedly"
}

/**
 * Every source's tools under their ids. Two sources can still meet on one id (an MCP server
 * `web` with a tool `_x` and a plugin `web` with a tool `x`): the later one gets its id with a
 * hash of its origin appended, so no tool ever hides another.
 */
const collect = (sources: ReadonlyArray<ToolSource>) =>
  Effect.forEach(sources, (source) =>
    Effect.map(source.tools, (tools) =>
      tools.map((definition) => ({ source, definition, id: toolId(source, definition.name) })),
    ),
  ).pipe(
    Effect.map((groups) => {
      const taken = new Set<string>()
      return groups.flat().map((entry) => {
        const id = taken.has(entry.id) ? distinctId(entry.source, entry.definition.name) : entry.id
        taken.add(id)
        return { ...entry, id }
      })
    }),
  )

export const make = Effect.gen(function* () {
  const registry = yield* ToolRegistry
  const runtime = yield* Effect.runtime<never>()
  const runExit = Runtime.runPromiseExit(runtime)

  const list = Effect.flatMap(registry.sources, collect).pipe(
    Effect.map((entries) =>
      entries.map(
        ({ source, definition, id }): ToolInfo => ({
          id,
          name: definition.name,
          description: definition.description,
          sourceId: source.id,
          requireApproval: definition.requireApproval,
        }),
      ),
    ),
  )

  const forRun = Effect.fn("Tools.forRun")(function* (context: RunToolsContext) {
    const { dynamicTool, jsonSchema } = yield* Effect.promise(loadAi)
    const entries = yield* Effect.flatMap(registry.sources, collect)
    const approved = new Set((context.approvedCalls ?? []).map((call) => call.toolCallId))
    const toolset: ToolSet = {}

    const execute =
      (definition: ToolDefinition) =>
      async (input: unknown, options: { readonly toolCallId: string; readonly abortSignal?: AbortSignal }) => {
        const exit = await runExit(
          definition.execute(input, {
            threadId: context.threadId,
            runId: context.runId,
            toolCallId: options.toolCallId,
          }),
          options.abortSignal === undefined ? undefined : { signal: options.abortSignal },
        )
        // A thrown error becomes the tool call's error: the model reads it and the run goes on.
        if (Exit.isFailure(exit)) throw new Error(failureMessage(exit.cause))
        return exit.value
      }

    // Progress reported as preliminary outputs; the last one is the tool's output.
    const executeStreamed = (definition: ToolDefinition, stream: NonNullable<ToolDefinition["stream"]>) =>
      async function* (input: unknown, options: { readonly toolCallId: string; readonly abortSignal?: AbortSignal }) {
        const reports = stream(input, {
          threadId: context.threadId,
          runId: context.runId,
          toolCallId: options.toolCallId,
        })
        const iterator = Stream.toAsyncIterableRuntime(runtime)(reports)[Symbol.asyncIterator]()
        const abort = () => void iterator.return?.()
        options.abortSignal?.addEventListener("abort", abort, { once: true })
        try {
          while (true) {
            const next = await iterator.next().catch((error: unknown) => {
              throw new Error(
                error instanceof ToolExecutionError ? error.message : `${definition.name} failed unexpectedly`,
              )
            })
            if (next.done === true) return
            yield next.value
          }
        } finally {
          options.abortSignal?.removeEventListener("abort", abort)
          await iterator.return?.()
        }
      }

    for (const { definition, id } of entries) {
      if (Object.hasOwn(toolset, id)) continue
      toolset[id] = dynamicTool({
        description: definition.description,
        inputSchema: jsonSchema(definition.inputSchema as Parameters<typeof jsonSchema>[0]),
        needsApproval: (_input, { toolCallId }) => approved.has(toolCallId) || definition.requireApproval,
        execute: definition.stream === undefined ? execute(definition) : executeStreamed(definition, definition.stream),
      })
    }
    // An approved call whose tool has gone since (its MCP server removed) fails as a tool error
    // instead of being silently dropped or re-judged by a policy that no longer exists.
    for (const call of context.approvedCalls ?? []) {
      if (Object.hasOwn(toolset, call.toolName)) continue
      toolset[call.toolName] = dynamicTool({
        description: "No longer available.",
        inputSchema: jsonSchema({ type: "object" }),
        needsApproval: true,
        execute: async () => {
          throw new Error(`the tool ${call.toolName} is no longer available`)
        },
      })
    }
    return toolset
  })

  return Tools.of({ forRun, list })
})

/** `Tools` over the kernel's `ToolRegistry`. */
export const layer: Layer.Layer<Tools, never, ToolRegistry> = Layer.effect(Tools, make)
