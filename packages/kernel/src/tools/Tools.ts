import type { ToolSet } from "ai"
import { Context, Effect, Layer } from "effect"
import { loadAi } from "../models/LoadAi.js"
import * as ToolExecution from "./ToolExecution.js"
import { distinctId, ToolRegistry, type ToolSource, toolId } from "./ToolRegistry.js"

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

    const callContext = (toolCallId: string) => ({ threadId: context.threadId, runId: context.runId, toolCallId })
    const execute = ToolExecution.make(runtime, callContext)

    for (const { source, definition, id } of entries) {
      if (Object.hasOwn(toolset, id)) continue
      toolset[id] = dynamicTool({
        description: definition.description,
        inputSchema: jsonSchema(definition.inputSchema as Parameters<typeof jsonSchema>[0]),
        needsApproval: (_input, { toolCallId }) => approved.has(toolCallId) || definition.requireApproval,
        execute: execute(definition, source.kind),
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
