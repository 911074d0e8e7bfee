/**
 * @aide/plugin: what an Aide plugin is made of, as types, and identity helpers that give a
 * plugin's objects their types. Nothing here runs in Aide: the loader accepts plain objects of
 * the same shapes, so a plugin works without importing this package.
 */
export type {
  AgentEntry,
  ChannelEntry,
  ConfigFieldDescriptor,
  ConfigFieldType,
  Permissions,
  PluginManifest,
  ToolEntry,
} from "./Manifest.js"

import type { PluginManifest } from "./Manifest.js"

/** Something a plugin wants the owner to see in `GET /api/plugins`. */
export interface Alert {
  readonly level: "info" | "warning" | "error"
  readonly message: string
}

/** A tool as listed in `GET /api/plugins`. */
export interface ToolManifest {
  readonly id: string
  readonly name: string
  readonly description: string
}

/** A JSON Schema (draft 2020-12 or 07) of a tool's input. */
export type JsonSchema = { readonly [key: string]: unknown }

/** What a tool call receives: only what the manifest declared and the owner granted. */
export interface ToolContext<Config = Readonly<Record<string, unknown>>> {
  /** The declared environment variables that are set on the host (others are absent). */
  readonly env: Readonly<Record<string, string>>
  /** The plugin's settings (`plugins.<id>` of the Aide config). */
  readonly config: Config
  /** The brokered fetch, present when `permissions.network` is declared. */
  readonly fetch?: typeof fetch
  /** Aborted when the call is cancelled or times out. */
  readonly signal: AbortSignal
  readonly log: (message: string, data?: unknown) => void
}

export interface ToolDefinition<Input = unknown, Output = unknown, Config = Readonly<Record<string, unknown>>> {
  /** Unique in the plugin; the model sees `<pluginId>:<id>`. */
  readonly id: string
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  readonly execute: (input: Input, context: ToolContext<Config>) => Output | Promise<Output>
}

export interface AgentDefinition {
  readonly id: string
  readonly name: string
  readonly description: string
  /** The agent's system instructions. */
  readonly instructions: string
  /** Overrides the model (else `plugins.<id>.agents.<agentId>.model`, else the operator's). */
  readonly model?: { readonly provider: string; readonly model: string }
  /** Ids of the tools it may use. */
  readonly useTools?: ReadonlyArray<string>
}

/** A channel (experimental: its contract lands with the channel loader). */
export interface ChannelDefinition {
  readonly id: string
  readonly name: string
  readonly webhookPath?: string
  readonly [key: string]: unknown
}

/** The manifest, typed. */
export const definePlugin = <const M extends PluginManifest>(manifest: M): M => manifest

/** A tool, typed (`parameters` stays a JSON Schema; type `Input` yourself or infer it from one). */
export const defineTool = <Input = unknown, Output = unknown, Config = Readonly<Record<string, unknown>>>(
  tool: ToolDefinition<Input, Output, Config>,
): ToolDefinition<Input, Output, Config> => tool

export const defineAgent = <const A extends AgentDefinition>(agent: A): A => agent

export const defineChannel = <const C extends ChannelDefinition>(channel: C): C => channel
