import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { AppConfig, type Kernel, PluginLoader, Tools } from "@aide/kernel"
import { Effect, type Layer, ManagedRuntime } from "effect"
import { testKernel } from "../effect/TestKernel.js"
import { FakeModelServer } from "../FakeModelServer.js"
import type { Turn } from "../Turn.js"

export interface PluginHarnessOptions {
  /** The plugin folder (the one holding `aide.plugin.json`). */
  readonly directory: string
  /** Its settings (`plugins.<id>` without `enabled`). */
  readonly config?: Readonly<Record<string, unknown>>
  /** The host environment its declared variables are read from. */
  readonly env?: Readonly<Record<string, string>>
  /** Scripted answers of the fake model (agents and chats); default: a plain text answer. */
  readonly turns?: ReadonlyArray<Turn>
  /** Process limits and egress policy (e.g. `{ egress: { allowHttp: true, allowedKinds: ["loopback"] } }` for a local test server). */
  readonly loader?: Kernel.KernelOptions["pluginLoader"]
}

/** A plugin running in a real Aide kernel, in its real sandbox, for its author's tests. */
export interface PluginHarness {
  /** `GET /api/plugins`'s entry for the plugin. */
  readonly view: () => Promise<unknown>
  /** Calls a tool (`toolId` as in the plugin) as a run would: input checked, then in the sandbox. */
  readonly callTool: (toolId: string, input: unknown) => Promise<unknown>
  /** Delegates `task` to an agent of the plugin; the model is the fake one, scripted by `turns`. */
  readonly runAgent: (agentId: string, task: string) => Promise<unknown>
  /** The fake model server (requests it received, more turns). */
  readonly model: FakeModelServer
  readonly close: () => Promise<void>
}

/** The `id` of the plugin in `directory` (its `aide.plugin.json`). */
export const manifestId = async (directory: string): Promise<string> => {
  const manifest = JSON.parse(await Fs.readFile(Path.join(directory, "aide.plugin.json"), "utf8")) as { id?: unknown }
  if (typeof manifest.id !== "string") throw new Error(`${directory}: aide.plugin.json has no id`)
  return manifest.id
}

/**
 * Starts a kernel on a temporary data folder with the plugin found through its folder and
 * enabled, and waits until it is loaded (a plugin that fails to load rejects with why).
 *
 * @example
 * const plugin = await startPlugin({ directory: new URL("..", import.meta.url).pathname })
 * expect(await plugin.callTool("greet", { name: "Ada" })).toEqual({ greeting: "Hello, Ada!" })
 * await plugin.close()
 */
export const startPlugin = async (options: PluginHarnessOptions): Promise<PluginHarness> => {
  const directory = Path.resolve(options.directory)
  const pluginId = await manifestId(directory)
  const dataDir = await Fs.mkdtemp(Path.join(Os.tmpdir(), "aide-plugin-"))
  const model = await FakeModelServer.start()
  model.script(...(options.turns ?? []))
  const env = { ...options.env, OPENAI_COMPATIBLE_BASE_URL: model.url }
  const kernel = testKernel({
    dataDir,
    env,
    plugins: { paths: [directory], env },
    ...(options.loader === undefined ? {} : { pluginLoader: options.loader }),
  }) as Layer.Layer<Kernel.KernelServices, unknown>
  const runtime = ManagedRuntime.make(kernel)
  const run = <A, E>(effect: Effect.Effect<A, E, Kernel.KernelServices>) => runtime.runPromise(effect)
  const close = async () => {
    await runtime.dispose()
    await model.close()
    await Fs.rm(dataDir, { recursive: true, force: true })
  }
  try {
    await run(
      Effect.flatMap(AppConfig.AppConfig, (config) =>
        config.patch({
          models: { operator: { provider: "openai-compatible", model: "fake-model" } },
          plugins: { [pluginId]: { ...options.config, enabled: true } },
        }),
      ),
    )
    await run(waitLoaded(pluginId))
  } catch (error) {
    await close()
    throw error
  }
  const view = () =>
    run(
      Effect.map(
        Effect.flatMap(PluginLoader.PluginLoader, (loader) => loader.list),
        (views) => views.find((entry) => entry.id === pluginId),
      ),
    )
  const call = (name: string, input: unknown) =>
    run(
      Effect.gen(function* () {
        const tools = yield* Tools.Tools
        const id = (yield* tools.list).find((tool) => tool.sourceId === pluginId && tool.name === name)?.id
        if (id === undefined) return yield* Effect.dieMessage(`the plugin has no tool "${name}"`)
        const toolset = yield* tools.forRun({ threadId: "harness", runId: "harness" })
        const execute = toolset[id]?.execute
        if (execute === undefined) return yield* Effect.dieMessage(`the tool "${name}" cannot be executed`)
        const result = yield* Effect.promise(() =>
          Promise.resolve(execute(input, { toolCallId: `harness-${Date.now()}`, messages: [] })),
        )
        return yield* Effect.promise(() => lastOf(result))
      }),
    )
  return {
    view,
    callTool: (toolId, input) => call(toolId, input),
    runAgent: (agentId, task) => call(`agent_${agentId}`, { task }),
    model,
    close,
  }
}

/** A tool's result, or the last report of a streamed one. */
const lastOf = async (result: unknown): Promise<unknown> => {
  if (result === null || typeof result !== "object" || !(Symbol.asyncIterator in result)) return result
  let last: unknown
  for await (const value of result as AsyncIterable<unknown>) last = value
  return last
}

/** Waits until the plugin is loaded (15 s at most); fails with why it did not load. */
export const waitLoaded = (pluginId: string) =>
  Effect.gen(function* () {
    const loader = yield* PluginLoader.PluginLoader
    for (let attempt = 0; attempt < 300; attempt++) {
      const state = yield* loader.state(pluginId)
      if (state?.status === "loaded") return
      if (state?.status === "failed") return yield* Effect.fail(new Error(`the plugin failed to load: ${state.error}`))
      if (state === undefined && attempt > 20) {
        const view = (yield* loader.list).find((entry) => entry.id === pluginId)
        const problems = view?.validationErrors.join("; ") ?? "it was not found"
        return yield* Effect.fail(new Error(`the plugin was not started: ${problems}`))
      }
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.fail(new Error("the plugin did not load within 15 s"))
  })
