import type { Declared, PluginManifest } from "../PluginManifest.js"
import type { Alert } from "../PluginView.js"
import type { PluginDescription } from "../sandbox/PluginProcess.js"

/**
 * The manifest's declared tools and agents (shown before the plugin runs) checked against what
 * each entry's module actually exports, once loaded: every difference is an error alert, so an
 * owner never enables a plugin on a listing its code does not keep. Entries that declare nothing,
 * and entries whose module failed to load (already an error alert), are not checked.
 */

interface Exported {
  readonly entry: string
  readonly id: string
  readonly name: string
  readonly description: string
}

const compare = (
  kind: "tool" | "agent",
  entry: string,
  declared: ReadonlyArray<Declared>,
  exported: ReadonlyArray<Exported>,
): Array<Alert> => {
  const alerts: Array<Alert> = []
  const error = (message: string) => alerts.push({ level: "error", message: `${entry}: ${message}` })
  for (const item of declared) {
    const found = exported.find((candidate) => candidate.id === item.id)
    if (found === undefined) {
      error(`the manifest declares ${kind} "${item.id}", which the module does not export`)
      continue
    }
    if (found.name !== item.name) {
      error(`${kind} "${item.id}" is named "${found.name}" by the module and "${item.name}" by the manifest`)
    }
    if (item.description !== undefined && found.description !== item.description) {
      error(`${kind} "${item.id}" has a description other than the manifest's`)
    }
  }
  for (const item of exported) {
    if (!declared.some((candidate) => candidate.id === item.id)) {
      error(`the module exports ${kind} "${item.id}", which the manifest does not declare`)
    }
  }
  return alerts
}

export const declarationAlerts = (
  manifest: PluginManifest,
  descriptions: ReadonlyArray<PluginDescription>,
): { readonly tools: ReadonlyArray<Alert>; readonly agents: ReadonlyArray<Alert> } => {
  const failed = new Set(
    descriptions.flatMap((description) =>
      description.alerts.filter((alert) => alert.level === "error").map((alert) => alert.message.split(": ")[0]),
    ),
  )
  const tools = descriptions.flatMap((description) => description.tools)
  const agents = descriptions.flatMap((description) => description.agents)
  const check = <E extends { readonly entry: string }>(
    kind: "tool" | "agent",
    entries: ReadonlyArray<E>,
    declaredOf: (entry: E) => ReadonlyArray<Declared> | undefined,
    exported: ReadonlyArray<Exported>,
  ) =>
    entries.flatMap((entry) => {
      const declared = declaredOf(entry)
      if (declared === undefined || failed.has(entry.entry)) return []
      return compare(
        kind,
        entry.entry,
        declared,
        exported.filter((item) => item.entry === entry.entry),
      )
    })
  return {
    tools: check("tool", manifest.provides.tools ?? [], (entry) => entry.tools, tools),
    agents: check("agent", manifest.provides.agents ?? [], (entry) => entry.agents, agents),
  }
}
