import { Data, Effect, type Option, type ParseResult, Schema } from "effect"
import type { Chat } from "../chat/Chat.js"
import type { McpToolName } from "../config/McpEndpointConfig.js"
import type { Ids } from "../ids/Ids.js"
import type { Inbox } from "../inbox/Inbox.js"
import type { Memory } from "../memory/Memory.js"
import type { RecallIndex } from "../memory/recall/RecallIndex.js"
import type { Scheduler } from "../scheduler/Scheduler.js"
import type { Threads } from "../threads/Threads.js"
import { describeProblems } from "../tools/TypedTool.js"

/** A call the tool refuses or cannot do: the client reads `message` (the HTTP route's words). */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{ readonly message: string }> {}

/** The kernel services the tools wrap. */
export type ToolServices = Chat | Ids | Threads | RecallIndex | Memory | Inbox | Scheduler

/** A tool call of the model's that waits for the owner's decision. */
export interface PendingCall {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
}

/** What a tool may do with the MCP request that called it. */
export interface CallContext {
  /** Reports progress (nothing is sent when the client asked for none); `progress` only grows. */
  readonly progress: (progress: number, message: string) => Effect.Effect<void>
  /**
   * Asks the MCP client's user to decide on a call (an elicitation): true or false, or undefined
   * when they dismissed it. None when the client cannot be asked.
   */
  readonly decide: Option.Option<(call: PendingCall) => Effect.Effect<boolean | undefined>>
}

/** One tool of `/mcp`: its input as a Schema (the JSON Schema clients see is derived from it). */
export interface McpTool {
  readonly name: McpToolName
  readonly title: string
  readonly description: string
  readonly input: Schema.Schema<any, any>
  /** MCP tool annotations: hints for the client's UI, never a guarantee. */
  readonly readOnly: boolean
  readonly destructive: boolean
  readonly run: (input: any, context: CallContext) => Effect.Effect<unknown, ToolFailure, ToolServices>
}

/** A tool, typed by its input Schema. */
export const tool = <A, I>(
  spec: Omit<McpTool, "input" | "run"> & {
    readonly input: Schema.Schema<A, I>
    readonly run: (input: A, context: CallContext) => Effect.Effect<unknown, ToolFailure, ToolServices>
  },
): McpTool => spec

/** Decodes a call's arguments as the HTTP route decodes its body: every problem named, excess keys refused. */
export const decodeArguments = (schema: Schema.Schema<any, any>, input: unknown) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })(input ?? {}).pipe(
    Effect.mapError(
      (error: ParseResult.ParseError) => new ToolFailure({ message: `invalid arguments: ${describeProblems(error)}` }),
    ),
  )

export const failWith = (message: string) => () => new ToolFailure({ message })
export const withMessage = (error: { readonly message: string }) => new ToolFailure({ message: error.message })
