import { createHash } from "node:crypto"
import { Context, Effect, Layer, Schema, type Scope, type Stream } from "effect"

/** Who is calling a tool: the run and thread it belongs to. */
export interface ToolCallContext {
  readonly threadId: string
  readonly runId: string
  readonly toolCallId: string
}

/** A tool that failed: the model is told `message` (a tool error), the run goes on. */
export class ToolExecutionError extends Schema.TaggedError<ToolExecutionError>()("ToolExecutionError", {
  message: Schema.String,
}) {}

/** One tool as its source knows it. */
export interface ToolDefinition {
  /** The name at the source (an MCP tool's name, a built-in's name); the model sees `toolId(source, name)`. */
  readonly name: string
  readonly description: string
  /** JSON Schema of the input (an object schema). */
  readonly inputSchema: Readonly<Record<string, unknown>>
  /** Whether a call pauses the run until the user approves it. */
  readonly requireApproval: boolean
  /** Runs the tool; the value is handed to the model as the tool's output (JSON-serialisable). */
  readonly execute: (input: unknown, context: ToolCallContext) => Effect.Effect<unknown, ToolExecutionError>
  /**
   * Reports progress instead (a plugin agent's steps): each element reaches the client as a
   * preliminary output and the last one is the tool's output. Runs use it over `execute` when set.
   */
  readonly stream?: (input: unknown, context: ToolCallContext) => Stream.Stream<unknown, ToolExecutionError>
}

/** A contributor of tools: the built-ins, one MCP server, one plugin. */
export interface ToolSource {
  /**
   * Stable, unique id: the MCP server id, the plugin id, or a name for a group of built-ins
   * (`time`, `inbox`). Prefix of its tools' ids, except for built-ins, whose tools keep their names.
   */
  readonly id: string
  readonly kind: "builtin" | "mcp" | "plugin"
  /** The source's tools now; read at the start of every run (an MCP server's list changes). */
  readonly tools: Effect.Effect<ReadonlyArray<ToolDefinition>>
}

/**
 * The tool sources currently available. It depends on no feature: MCP, plugins and the scheduler
 * add their sources (see `source`); chat only reads it, through `Tools`.
 */
export class ToolRegistry extends Context.Tag("@aide/kernel/ToolRegistry")<
  ToolRegistry,
  {
    /** Adds `source` for the lifetime of the current scope. A taken id is a wiring bug (a defect). */
    readonly register: (source: ToolSource) => Effect.Effect<void, never, Scope.Scope>
    /** Registered sources, in registration order. */
    readonly sources: Effect.Effect<ReadonlyArray<ToolSource>>
  }
>() {}

export const make: Effect.Effect<ToolRegistry["Type"]> = Effect.sync(() => {
  // Keyed by kind too: an MCP server and a plugin may share an id (their tools' ids differ by `toolId`).
  const sources = new Map<string, ToolSource>()
  const keyOf = (source: ToolSource) => `${source.kind}:${source.id}`
  const register = (source: ToolSource) =>
    Effect.acquireRelease(
      Effect.suspend(() => {
        const key = keyOf(source)
        if (sources.has(key)) return Effect.dieMessage(`tool source "${key}" is already registered`)
        sources.set(key, source)
        return Effect.void
      }),
      () =>
        Effect.sync(() => {
          if (sources.get(keyOf(source)) === source) sources.delete(keyOf(source))
        }),
    )
  return ToolRegistry.of({ register, sources: Effect.sync(() => Array.from(sources.values())) })
})

/** An empty registry; features add their sources with `source(...)` layers. */
export const layer: Layer.Layer<ToolRegistry> = Layer.effect(ToolRegistry, make)

/** Registers `source` in the current scope. */
export const register = (source: ToolSource): Effect.Effect<void, never, ToolRegistry | Scope.Scope> =>
  Effect.flatMap(ToolRegistry, (registry) => registry.register(source))

/** A Layer contributing a tool source while it is alive. */
export const source = (toolSource: ToolSource): Layer.Layer<never, never, ToolRegistry> =>
  Layer.scopedDiscard(register(toolSource))

/** Providers accept tool names of at most 64 characters from `[A-Za-z0-9_-]`. */
const maxIdLength = 64
const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 6)

/**
 * The id the model sees for tool `name` of `source`: built-ins keep their name (`current_time`,
 * `notify`), others are `<sourceId>_<name>` (`github_create_issue`; a plugin's `web-fetch:fetch_page`
 * is `web-fetch_fetch_page`: providers refuse `:`). Characters providers reject become `_`; when that (or truncation to
 * 64 characters) changed the id, a hash of the original is appended, so two different tools
 * never share an id and the same tool always gets the same one.
 */
export const toolId = (source: Pick<ToolSource, "id" | "kind">, name: string): string => {
  const raw = source.kind === "builtin" ? name : `${source.id}_${name}`
  const safe = raw.replace(/[^A-Za-z0-9_-]/g, "_")
  if (safe === raw && raw.length <= maxIdLength && raw.length > 0) return raw
  const suffix = `_${shortHash(raw)}`
  return `${safe.slice(0, maxIdLength - suffix.length)}${suffix}`
}

/** The id of a tool whose `toolId` another source took first: `toolId` plus a hash of its origin. */
export const distinctId = (source: Pick<ToolSource, "id" | "kind">, name: string): string => {
  const suffix = `_${shortHash(`${source.kind}:${source.id}:${name}`)}`
  return `${toolId(source, name).slice(0, maxIdLength - suffix.length)}${suffix}`
}
