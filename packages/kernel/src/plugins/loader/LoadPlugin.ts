import { Effect, type Scope } from "effect"
import type { ToolDefinition } from "../../tools/ToolRegistry.js"
import type { DiscoveredPlugin } from "../PluginDiscovery.js"
import { allowedEnv } from "../PluginEnv.js"
import { folderOf, type PluginManifest } from "../PluginManifest.js"
import * as PluginProcess from "../sandbox/PluginProcess.js"
import { type AgentDeps, type AgentInfo, delegate, resolveToolIds } from "./PluginAgent.js"
import { declaredEnv, type ProcessPlan, plan } from "./PluginPlan.js"
import { agentModel, type ModelChoice, pluginConfig } from "./PluginSettings.js"
import { approvalOf, definitionOf } from "./PluginToolSource.js"
import { precompile } from "./Precompile.js"

export interface LoadOptions {
  readonly hostEnv: Readonly<Record<string, string | undefined>>
  readonly limits?: PluginProcess.PluginProcessOptions["limits"]
  readonly egress?: PluginProcess.PluginProcessOptions["egress"]
  /** Certificate authorities the brokered TLS sockets trust (a private PKI; tests). */
  readonly tlsCa?: PluginProcess.PluginProcessOptions["tlsCa"]
  /**
   * Where sandboxed plugins' modules are precompiled, one folder per plugin
   * (`<dataDir>/cache/plugin-modules`); unset, a compartment process compiles them itself.
   */
  readonly modulesDir?: string
  readonly onRequest?: (
    pluginId: string,
  ) => (method: string, params: unknown) => Effect.Effect<unknown, PluginProcess.PluginCallError>
}

/** A plugin whose processes are up: what it offers now (re-read after a process restarts). */
export interface LoadedPlugin {
  /** The manifest it was started with (its declared tools are checked against the descriptions). */
  readonly manifest: PluginManifest
  readonly processes: ReadonlyArray<PluginProcess.PluginProcess>
  /** The declared variables it was given. */
  readonly env: Readonly<Record<string, string>>
  readonly descriptions: Effect.Effect<ReadonlyArray<PluginProcess.PluginDescription>>
  /** Its tools and agent delegates as kernel tools. */
  readonly definitions: Effect.Effect<ReadonlyArray<ToolDefinition>>
  /** The tools the agent may use, as its `useTools` (or its entry's) names them. */
  readonly agentUses: (agent: AgentInfo) => ReadonlyArray<string>
  /** The model the owner or the plugin chose for the agent (null: the operator's). */
  readonly agentModel: (agent: AgentInfo) => ModelChoice | null
}

const agentEntry = (manifest: PluginManifest, agent: AgentInfo) =>
  (manifest.provides.agents ?? []).find((entry) => entry.entry === agent.entry)

/**
 * The compartment process's precompiled modules folder, compiled now (a failure is logged: the
 * process then compiles what is missing itself, slower, with the same result).
 */
const modulesOf = (
  plugin: DiscoveredPlugin,
  processPlan: ProcessPlan,
  modulesDir: string | undefined,
  memoryMb: number,
): Effect.Effect<string | undefined> => {
  if (modulesDir === undefined || processPlan.trust !== "compartment") return Effect.succeed(undefined)
  const cacheDir = folderOf(modulesDir, plugin.id)
  // Not reached with a checked manifest (its id is one path segment): no cache rather than one elsewhere.
  if (cacheDir === undefined) return Effect.succeed(undefined)
  const entries = [...processPlan.entries.tools, ...processPlan.entries.agents, ...processPlan.entries.channels]
  return precompile({ directory: plugin.directory, entries, cacheDir, memoryMb }).pipe(
    Effect.tap((summary) => Effect.logDebug("plugin modules precompiled", summary)),
    Effect.catchAll((error) =>
      Effect.logWarning(`plugin modules not precompiled (${error.message}); the plugin process compiles them`),
    ),
    Effect.as(cacheDir),
  )
}

/** Starts a plugin's processes in the current scope (closing it stops them). */
export const load = (
  plugin: DiscoveredPlugin & { readonly manifest: PluginManifest },
  values: Readonly<Record<string, unknown>>,
  deps: AgentDeps,
  options: LoadOptions,
): Effect.Effect<LoadedPlugin, PluginProcess.PluginStartError, Scope.Scope> =>
  Effect.gen(function* () {
    const manifest = plugin.manifest
    const env = declaredEnv(manifest, options.hostEnv, allowedEnv(values))
    const config = pluginConfig(manifest.configFields ?? [], values)
    const processes = yield* Effect.forEach(plan(manifest), (processPlan) =>
      Effect.flatMap(
        modulesOf(plugin, processPlan, options.modulesDir, options.limits?.memoryMb ?? PluginProcess.defaults.memoryMb),
        (modules) =>
          PluginProcess.start({
            pluginId: plugin.id,
            directory: plugin.directory,
            trust: processPlan.trust,
            entries: processPlan.entries,
            permissions: processPlan.permissions,
            env,
            config,
            ...(options.limits === undefined ? {} : { limits: options.limits }),
            ...(options.egress === undefined ? {} : { egress: options.egress }),
            ...(options.tlsCa === undefined ? {} : { tlsCa: options.tlsCa }),
            ...(options.onRequest === undefined ? {} : { onRequest: options.onRequest(plugin.id) }),
            ...(modules === undefined ? {} : { modules }),
          }),
      ),
    )
    const descriptions = Effect.forEach(processes, (process) => process.description)

    const agentUses = (agent: AgentInfo) => agent.useTools ?? agentEntry(manifest, agent)?.useTools ?? []
    const agentModelOf = (agent: AgentInfo) =>
      agentModel(values, agent.id) ?? agent.model ?? agentEntry(manifest, agent)?.model ?? null

    // Built once per description object: a restarted process brings new ones.
    const cache = new WeakMap<object, ToolDefinition>()
    const cached = (key: object, build: () => ToolDefinition) => {
      const known = cache.get(key)
      if (known !== undefined) return known
      const built = build()
      cache.set(key, built)
      return built
    }

    const definitions = Effect.map(descriptions, (all) => {
      const ownTools = new Map<string, boolean>()
      const result: Array<ToolDefinition> = []
      all.forEach((description, index) => {
        const process = processes[index] as PluginProcess.PluginProcess
        for (const tool of description.tools) {
          const requireApproval = approvalOf(manifest, values, tool)
          ownTools.set(`${plugin.id}:${tool.id}`, requireApproval)
          result.push(cached(tool, () => definitionOf({ tool, process, requireApproval })))
        }
      })
      for (const description of all) {
        for (const agent of description.agents) {
          const useTools = agentUses(agent)
          // Only this plugin's tools are known here; any other tool makes the delegation ask.
          const requireApproval = useTools.some((id) => ownTools.get(id) !== false)
          result.push(
            cached(agent, () =>
              delegate(
                agent,
                (document) => agentModelOf(agent) ?? document.models.operator,
                resolveToolIds(useTools),
                requireApproval,
                deps,
              ),
            ),
          )
        }
      }
      return result
    })

    return {
      manifest,
      processes,
      env,
      descriptions,
      definitions,
      agentUses,
      agentModel: (agent) => agentModelOf(agent),
    }
  })
