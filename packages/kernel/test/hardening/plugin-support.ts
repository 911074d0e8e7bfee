import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Effect, Exit, Logger, Scope } from "effect"
import * as PluginProcess from "../../src/plugins/sandbox/PluginProcess.js"

/** Hostile plugins written by the tests into temporary folders, run as real plugin processes. */

const folders: Array<string> = []
const scopes: Array<Scope.CloseableScope> = []

/** A plugin folder holding `files` (path → source). */
export const writePlugin = (files: Readonly<Record<string, string>>): string => {
  const dir = mkdtempSync(path.join(tmpdir(), "aide-hostile-"))
  folders.push(dir)
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), source)
  }
  return dir
}

/** A tools module of `name → body of an execute(input, context) function`. */
export const toolsModule = (tools: Readonly<Record<string, string>>, prelude = "") =>
  `${prelude}\nexport default [\n${Object.entries(tools)
    .map(
      ([id, body]) =>
        `  { id: ${JSON.stringify(id)}, name: ${JSON.stringify(id)}, description: "x", parameters: { type: "object" }, execute: async (input, context) => { ${body} } },`,
    )
    .join("\n")}\n]\n`

export interface Started {
  readonly plugin: PluginProcess.PluginProcess
  /** Every line the host logged for the plugin, in order. */
  readonly logs: Array<string>
  readonly close: () => Promise<void>
}

export const start = async (
  options: Partial<PluginProcess.PluginProcessOptions> & { readonly directory: string },
): Promise<Started> => {
  const logs: Array<string> = []
  const logger = Logger.make(({ message }) => {
    logs.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
  })
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  const plugin = await Effect.runPromise(
    PluginProcess.start({
      pluginId: "hostile",
      trust: "compartment",
      entries: { tools: ["tools.mjs"], agents: [], channels: [] },
      permissions: {},
      env: {},
      config: {},
      backoff: { initialMs: 100, maxMs: 1_000 },
      ...options,
    }).pipe(Scope.extend(scope), Effect.provide(Logger.replace(Logger.defaultLogger, logger))),
  )
  return { plugin, logs, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

export const cleanup = async () => {
  await Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export const call = (plugin: PluginProcess.PluginProcess, toolId: string, input: unknown = {}) =>
  Effect.runPromise(plugin.callTool(toolId, input))

export const pidOf = (plugin: PluginProcess.PluginProcess) => Effect.runPromise(plugin.pid)

/** Whether `pid` is a live process (a zombie waiting for its reaper counts as gone). */
export const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

export const eventually = async (check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
