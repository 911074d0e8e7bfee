import { Effect } from "effect"
import { type ToolDefinition, ToolExecutionError, type ToolSource } from "../../tools/ToolRegistry.js"
import type { PluginManifest } from "../PluginManifest.js"
import type { PluginDescription, PluginProcess } from "../sandbox/PluginProcess.js"
import { inputProblem } from "./InputCheck.js"
import { toolApproval } from "./PluginSettings.js"

/** A plugin tool as the loader knows it: where it runs and its approval policy now. */
export interface LoadedTool {
  readonly tool: PluginDescription["tools"][number]
  readonly process: PluginProcess
  readonly requireApproval: boolean
}

/** The approval policy of a tool: the owner's (`plugins.<id>.tools.<toolId>`), else its entry's, else true. */
export const approvalOf = (
  manifest: PluginManifest,
  values: Readonly<Record<string, unknown>>,
  tool: PluginDescription["tools"][number],
): boolean =>
  toolApproval(values, tool.id) ??
  (manifest.provides.tools ?? []).find((entry) => entry.entry === tool.entry)?.requireApproval ??
  true

/**
 * One plugin tool as a kernel tool: the input's shape and size checked in the host, its schema in
 * the plugin's process (InputCheck.ts says why), then the tool called there.
 */
export const definitionOf = ({ tool, process, requireApproval }: LoadedTool): ToolDefinition => {
  return {
    name: tool.id,
    description: tool.description,
    inputSchema: tool.parameters,
    requireApproval,
    execute: (input) =>
      Effect.suspend(() => {
        const problem = inputProblem(input)
        if (problem !== undefined) return Effect.fail(new ToolExecutionError({ message: `invalid input: ${problem}` }))
        // The run being stopped reaches the plugin as an aborted `context.signal`.
        const controller = new AbortController()
        return process.callTool(tool.id, input, controller.signal).pipe(
          Effect.mapError((error) => new ToolExecutionError({ message: error.message })),
          Effect.onInterrupt(() => Effect.sync(() => controller.abort())),
        )
      }),
  }
}

/** The tool source of one loaded plugin (registered while the plugin is loaded). */
export const toolSource = (pluginId: string, tools: Effect.Effect<ReadonlyArray<ToolDefinition>>): ToolSource => ({
  id: pluginId,
  kind: "plugin",
  tools,
})
