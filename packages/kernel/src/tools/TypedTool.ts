import { Effect, JSONSchema, ParseResult, Schema } from "effect"
import { type ToolCallContext, type ToolDefinition, ToolExecutionError } from "./ToolRegistry.js"

/** A tool whose input is described by a `Schema`: the model sees its JSON Schema, `execute` gets it decoded. */
export interface TypedToolSpec<A, I> {
  /** The name at the source; the model sees `ToolRegistry.toolId(source, name)`. */
  readonly name: string
  readonly description: string
  /** An object schema (`Schema.Struct`); field descriptions (`annotations({ description })`) reach the model. */
  readonly parameters: Schema.Schema<A, I>
  /** Whether a call pauses the run until the owner approves it; default false. */
  readonly requireApproval?: boolean
  readonly execute: (input: A, context: ToolCallContext) => Effect.Effect<unknown, ToolExecutionError>
}

/** `a.b: is missing; c: Expected string, actual 1`: what the model reads to correct its call. */
export const describeProblems = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`))
    .join("; ")

type Json = Record<string, unknown>

/** Replaces each `{ $ref: "#/$defs/X" }` by its definition; false when a definition refers to itself. */
const inlineReferences = (value: unknown, defs: Json, seen: ReadonlyArray<string> = []): unknown => {
  if (Array.isArray(value)) return value.map((item) => inlineReferences(item, defs, seen))
  if (typeof value !== "object" || value === null) return value
  const node = value as Json
  const ref = typeof node.$ref === "string" ? node.$ref.replace(/^#\/\$defs\//, "") : undefined
  if (ref !== undefined && ref in defs) {
    if (seen.includes(ref)) throw new RecursiveSchema()
    const { $ref: _, ...siblings } = node
    return { ...(inlineReferences(defs[ref], defs, [...seen, ref]) as Json), ...siblings }
  }
  return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, inlineReferences(child, defs, seen)]))
}

class RecursiveSchema extends Error {}

/**
 * The JSON Schema providers accept: no `$schema` key (some reject it) and no `$defs`/`$ref`
 * (Effect names refinements such as `Int`; Gemini refuses references), unless the schema is
 * recursive and cannot do without them.
 */
export const jsonSchemaOf = (schema: Schema.Schema.AnyNoContext): Json => {
  const { $schema: _, $defs, ...rest } = JSONSchema.make(schema) as unknown as Json
  if ($defs === undefined) return rest
  try {
    return inlineReferences(rest, $defs as Json) as Json
  } catch (error) {
    if (error instanceof RecursiveSchema) return { ...rest, $defs }
    throw error
  }
}

/**
 * A `ToolDefinition` from a Schema of its input: the JSON Schema is derived, and the input is
 * decoded (excess keys refused, as the derived schema says) before `execute` runs. A call the
 * schema refuses is a tool error the model reads, naming each problem, not a failed run.
 *
 * @example
 * const echo = TypedTool.make({
 *   name: "echo",
 *   description: "Says it back",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   execute: ({ text }) => Effect.succeed(text),
 * })
 */
export const make = <A, I>(spec: TypedToolSpec<A, I>): ToolDefinition => {
  const decode = Schema.decodeUnknown(spec.parameters, { errors: "all", onExcessProperty: "error" })
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: jsonSchemaOf(spec.parameters),
    requireApproval: spec.requireApproval ?? false,
    execute: (input, context) =>
      decode(input ?? {}).pipe(
        Effect.mapError((error) => new ToolExecutionError({ message: `invalid input: ${describeProblems(error)}` })),
        Effect.flatMap((decoded) => spec.execute(decoded, context)),
      ),
  }
}
