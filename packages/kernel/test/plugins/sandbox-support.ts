import { fileURLToPath } from "node:url"
import { Effect, Either, Exit, Scope } from "effect"
import * as PluginProcess from "../../src/plugins/sandbox/PluginProcess.js"

/** Plugin fixtures are real folders under ./fixtures; each started process is closed by `closeAll`. */

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

const scopes: Array<Scope.CloseableScope> = []

export const startPlugin = async (
  options: Partial<PluginProcess.PluginProcessOptions> & { readonly pluginId: string },
): Promise<PluginProcess.PluginProcess> => {
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  return Effect.runPromise(
    PluginProcess.start({
      directory: fixture(options.pluginId),
      trust: "compartment",
      entries: { tools: ["tools.mjs"], agents: [], channels: [] },
      permissions: {},
      env: {},
      config: {},
      ...options,
    }).pipe(Scope.extend(scope)),
  )
}

export const closeAll = () =>
  Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))

export const call = (plugin: PluginProcess.PluginProcess, toolId: string, input: unknown = {}) =>
  Effect.runPromise(plugin.callTool(toolId, input))

/** The error of a call that must fail (a success fails the test). */
export const failure = async (effect: Effect.Effect<unknown, PluginProcess.PluginCallError>) => {
  const result = await Effect.runPromise(Effect.either(effect))
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

export const callFails = (plugin: PluginProcess.PluginProcess, toolId: string, input: unknown = {}) =>
  failure(plugin.callTool(toolId, input))

/** Polls `check` until it holds (restarts take a few hundred milliseconds). */
export const eventually = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
