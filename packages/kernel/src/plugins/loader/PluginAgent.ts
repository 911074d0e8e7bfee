import type { ToolSet } from "ai"
import { Effect, Stream } from "effect"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import { loadAi } from "../../models/LoadAi.js"
import { ModelRegistry } from "../../models/ModelRegistry.js"
import { type ToolDefinition, ToolExecutionError, toolId } from "../../tools/ToolRegistry.js"
import type { ToolInfo, Tools } from "../../tools/Tools.js"
import type { PluginDescription } from "../sandbox/PluginProcess.js"
import type { ModelChoice } from "./PluginSettings.js"

/** Most model steps one delegation may take. */
const maxAgentSteps = 8

export type AgentInfo = PluginDescription["agents"][number]

/** What a delegation reports, step by step (the last report is the result the operator model reads). */
export interface AgentReport {
  readonly agent: string
  readonly status: "running" | "done"
  readonly steps: ReadonlyArray<{ readonly tool: string; readonly input: unknown; readonly output: unknown }>
  readonly text: string
}

/** The model-facing ids an agent may use: `<pluginId>:<toolId>` of a plugin tool, else a tool id as the model sees it. */
export const resolveToolIds = (useTools: ReadonlyArray<string>): ReadonlyArray<string> =>
  useTools.map((id) => {
    const colon = id.indexOf(":")
    return colon > 0 ? toolId({ id: id.slice(0, colon), kind: "plugin" }, id.slice(colon + 1)) : id
  })

export interface AgentDeps {
  readonly tools: Tools["Type"]
  readonly models: ModelRegistry["Type"]
  readonly config: Effect.Effect<AppConfigDocument>
}

const inputSchema = {
  type: "object",
  properties: {
    task: {
      type: "string",
      minLength: 1,
      maxLength: 20_000,
      description: "What the agent should do, with what it needs to know",
    },
  },
  required: ["task"],
  additionalProperties: false,
} as const

/** A step's output as reported: long outputs are cut (the agent itself saw them whole). */
const reported = (output: unknown): unknown => {
  const text = JSON.stringify(output) ?? "null"
  return text.length <= 2_000 ? output : `${text.slice(0, 2_000)}… (cut)`
}

const failure = (error: unknown) =>
  new ToolExecutionError({ message: `the agent failed: ${error instanceof Error ? error.message : String(error)}` })

const taskOf = (input: unknown): string =>
  typeof input === "object" && input !== null && typeof (input as { task?: unknown }).task === "string"
    ? (input as { task: string }).task
    : ""

/** The agent's model run, reported after each tool result and once at the end. */
const run =
  (
    agent: AgentInfo,
    choose: (config: AppConfigDocument) => ModelChoice,
    toolIds: ReadonlyArray<string>,
    deps: AgentDeps,
  ) =>
  (input: unknown, context: { readonly threadId: string; readonly runId: string }) =>
    Stream.unwrapScoped(
      Effect.gen(function* () {
        const controller = yield* Effect.acquireRelease(
          Effect.sync(() => new AbortController()),
          (controller) => Effect.sync(() => controller.abort()),
        )
        const config = yield* deps.config
        const { model } = yield* deps.models.languageModel(choose(config)).pipe(Effect.mapError(failure))
        const all = yield* deps.tools.forRun({ threadId: context.threadId, runId: context.runId })
        const tools: ToolSet = {}
        // Approved up front with the delegation (see `delegate`): no nested pause.
        for (const id of toolIds)
          if (Object.hasOwn(all, id)) tools[id] = { ...all[id], needsApproval: false } as ToolSet[string]
        async function* drive(): AsyncGenerator<AgentReport> {
          const { stepCountIs, streamText } = await loadAi()
          const result = streamText({
            model,
            system: agent.instructions,
            prompt: taskOf(input),
            tools,
            stopWhen: stepCountIs(maxAgentSteps),
            abortSignal: controller.signal,
            maxRetries: 1,
          })
          const steps: Array<AgentReport["steps"][number]> = []
          for await (const part of result.fullStream) {
            if (part.type === "error") throw part.error
            if (part.type === "tool-result" || part.type === "tool-error") {
              const output = part.type === "tool-result" ? part.output : { error: String(part.error) }
              steps.push({ tool: part.toolName, input: part.input, output: reported(output) })
              yield { agent: agent.id, status: "running", steps: [...steps], text: "" }
            }
          }
          yield { agent: agent.id, status: "done", steps, text: await result.text }
        }
        return Stream.fromAsyncIterable(drive(), failure)
      }),
    )

/**
 * A plugin agent as a delegate the operator model can call. It runs with its own instructions,
 * model and tools; each finished step is reported as a preliminary output, so the client sees
 * the agent work. Approval is asked once, for the delegation (when any of its tools needs it):
 * a nested run cannot pause, so the owner approves the agent's use of its tools up front.
 */
export const delegate = (
  agent: AgentInfo,
  choose: (config: AppConfigDocument) => ModelChoice,
  toolIds: ReadonlyArray<string>,
  requireApproval: boolean,
  deps: AgentDeps,
): ToolDefinition => {
  const reports = run(agent, choose, toolIds, deps)
  return {
    name: `agent_${agent.id}`,
    description: `Delegate a task to the agent "${agent.name}": ${agent.description}`,
    inputSchema,
    requireApproval,
    execute: (input, context) =>
      Effect.map(Stream.runLast(reports(input, context)), (last) => (last._tag === "Some" ? last.value : null)),
    stream: reports,
  }
}

/**
 * The tools an agent may use, as listed in `GET /api/plugins` (ToolManifest), under the ids its
 * `useTools` gives: this plugin's own from its description, others from the tools available now.
 */
export const agentTools = (
  pluginId: string,
  useTools: ReadonlyArray<string>,
  own: ReadonlyArray<{ readonly id: string; readonly name: string; readonly description: string }>,
  available: ReadonlyArray<ToolInfo>,
) =>
  useTools.flatMap((id) => {
    const tool = id.startsWith(`${pluginId}:`)
      ? own.find((candidate) => `${pluginId}:${candidate.id}` === id)
      : available.find((candidate) => candidate.id === resolveToolIds([id])[0])
    return tool === undefined ? [] : [{ id, name: tool.name, description: tool.description }]
  })
