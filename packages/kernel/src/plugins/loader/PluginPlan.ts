import { declaredNames, isAidesOwn } from "../PluginEnv.js"
import type { Permissions, PluginManifest } from "../PluginManifest.js"

/**
 * How a plugin is split into processes: one per trust level. Compartment tools, the agents (data
 * only) and the channels that ask for it share the sandboxed process; host tools and the other
 * channels share the other. A channel is `host` unless its entry says `compartment`: channels
 * written before the brokered sockets use Node's own network, which a compartment does not have.
 */
export interface ProcessPlan {
  readonly trust: "compartment" | "host"
  readonly entries: {
    readonly tools: ReadonlyArray<string>
    readonly agents: ReadonlyArray<string>
    readonly channels: ReadonlyArray<string>
  }
  /** The union of the permissions of the process's tool and channel entries. */
  readonly permissions: Permissions
}

const union = (all: ReadonlyArray<Permissions>): Permissions => {
  const list = (pick: (permissions: Permissions) => ReadonlyArray<string> | undefined) => {
    const values = [...new Set(all.flatMap((permissions) => pick(permissions) ?? []))]
    return values.length === 0 ? undefined : values
  }
  const env = list((permissions) => permissions.env)
  const network = list((permissions) => permissions.network)
  const fs = list((permissions) => permissions.fs)
  return {
    ...(all.some((permissions) => permissions.time === true) ? { time: true } : {}),
    ...(all.some((permissions) => permissions.random === true) ? { random: true } : {}),
    ...(env === undefined ? {} : { env }),
    ...(network === undefined ? {} : { network }),
    ...(fs === undefined ? {} : { fs }),
  }
}

export const plan = (manifest: PluginManifest): ReadonlyArray<ProcessPlan> => {
  const tools = manifest.provides.tools ?? []
  const sandboxed = tools.filter((tool) => tool.sandbox !== "host")
  const trusted = tools.filter((tool) => tool.sandbox === "host")
  const agents = (manifest.provides.agents ?? []).map((agent) => agent.entry)
  const channels = manifest.provides.channels ?? []
  const contained = channels.filter((channel) => channel.sandbox === "compartment")
  const hosted = channels.filter((channel) => channel.sandbox !== "compartment")
  const plans: Array<ProcessPlan> = []
  if (sandboxed.length > 0 || agents.length > 0 || contained.length > 0) {
    plans.push({
      trust: "compartment",
      entries: {
        tools: sandboxed.map((tool) => tool.entry),
        agents,
        channels: contained.map((channel) => channel.entry),
      },
      permissions: union([...sandboxed, ...contained].map((entry) => entry.permissions ?? {})),
    })
  }
  if (trusted.length > 0 || hosted.length > 0) {
    plans.push({
      trust: "host",
      entries: {
        tools: trusted.map((tool) => tool.entry),
        agents: [],
        channels: hosted.map((channel) => channel.entry),
      },
      permissions: union([...trusted, ...hosted].map((entry) => entry.permissions ?? {})),
    })
  }
  return plans
}

/**
 * The variables a plugin may see: those its manifest declares (`envVars`, `permissions.env`),
 * less Aide's own ones (PluginEnv.ts) the owner has not allowed by name.
 */
export const declaredEnv = (
  manifest: PluginManifest,
  hostEnv: Readonly<Record<string, string | undefined>>,
  allowed: ReadonlyArray<string> = [],
): Readonly<Record<string, string>> => {
  const env: Record<string, string> = {}
  for (const name of declaredNames(manifest)) {
    if (isAidesOwn(name) && !allowed.includes(name)) continue
    const value = hostEnv[name]
    if (value !== undefined && value !== "") env[name] = value
  }
  return env
}
