// PLACEHOLDER: replaced by the sandbox branch (the API the loader is written against).
import type { Effect, Scope } from "effect"
import { Schema } from "effect"
import type { EgressOptions } from "../../net/Egress.js"
import type { Permissions } from "../PluginManifest.js"

export class PluginCallError extends Schema.TaggedError<PluginCallError>()("PluginCallError", {
  message: Schema.String,
}) {}
export class PluginStartError extends Schema.TaggedError<PluginStartError>()("PluginStartError", {
  message: Schema.String,
}) {}

export interface PluginProcessOptions {
  readonly pluginId: string
  readonly directory: string
  readonly trust: "compartment" | "host"
  readonly entries: {
    readonly tools: ReadonlyArray<string>
    readonly agents: ReadonlyArray<string>
    readonly channels: ReadonlyArray<string>
  }
  readonly permissions: Permissions
  readonly env: Readonly<Record<string, string>>
  readonly config: Readonly<Record<string, unknown>>
  readonly limits?: {
    readonly memoryMb?: number
    readonly callTimeoutMs?: number
    readonly outputBytes?: number
    readonly startTimeoutMs?: number
  }
  readonly egress?: Omit<EgressOptions, "allowedHosts">
  readonly onRequest?: (method: string, params: unknown) => Effect.Effect<unknown, PluginCallError>
}

export interface PluginDescription {
  readonly tools: ReadonlyArray<{
    readonly entry: string
    readonly id: string
    readonly name: string
    readonly description: string
    readonly parameters: Readonly<Record<string, unknown>>
  }>
  readonly agents: ReadonlyArray<{
    readonly entry: string
    readonly id: string
    readonly name: string
    readonly description: string
    readonly instructions: string
    readonly model?: { readonly provider: string; readonly model: string } | undefined
    readonly useTools?: ReadonlyArray<string> | undefined
  }>
  readonly channels: ReadonlyArray<{
    readonly entry: string
    readonly id: string
    readonly name: string
    readonly webhook: unknown
    readonly realtime: boolean
    readonly send: boolean
    readonly notify: boolean
  }>
  readonly alerts: ReadonlyArray<{ readonly level: "info" | "warning" | "error"; readonly message: string }>
}

export interface PluginProcess {
  readonly description: Effect.Effect<PluginDescription>
  readonly callTool: (toolId: string, input: unknown, signal?: AbortSignal) => Effect.Effect<unknown, PluginCallError>
  readonly request: (
    method: string,
    params: unknown,
    options?: { readonly timeoutMs?: number | null; readonly signal?: AbortSignal },
  ) => Effect.Effect<unknown, PluginCallError>
  readonly pid: Effect.Effect<number | undefined>
}

export declare const start: (
  options: PluginProcessOptions,
) => Effect.Effect<PluginProcess, PluginStartError, Scope.Scope>
