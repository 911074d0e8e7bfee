import { Cause, Exit, Runtime, Stream } from "effect"
import * as KernelMetrics from "../metrics/KernelMetrics.js"
import { boundedOutput } from "./BoundedValue.js"
import { type ToolCallContext, type ToolDefinition, ToolExecutionError, type ToolSource } from "./ToolRegistry.js"

interface CallOptions {
  readonly toolCallId: string
  readonly abortSignal?: AbortSignal
}

const failureMessage = (cause: Cause.Cause<{ readonly message: string }>) => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return failure.value.message
  if (Cause.isInterruptedOnly(cause)) return "the tool call was cancelled"
  return "the tool failed unexpectedly"
}

/**
 * A kernel tool as the AI SDK's `execute`: its Effect run to a value, or its `stream` as an
 * async iterable whose values are preliminary outputs and whose last value is the output. A
 * failure is thrown with its message: the AI SDK hands it to the model and the run goes on.
 * Outputs are bounded (BoundedValue): a deep or huge result is stored and sent cut, with a marker.
 */
export const make =
  (runtime: Runtime.Runtime<never>, contextOf: (toolCallId: string) => ToolCallContext) =>
  (definition: ToolDefinition, source: ToolSource["kind"]) => {
    const stream = definition.stream
    if (stream !== undefined) return streamed(runtime, contextOf, definition.name, source, stream)
    const runExit = Runtime.runPromiseExit(runtime)
    return async (input: unknown, options: CallOptions) => {
      const exit = await runExit(
        definition.execute(input, contextOf(options.toolCallId)),
        options.abortSignal === undefined ? undefined : { signal: options.abortSignal },
      )
      KernelMetrics.countToolCall(source, Exit.isFailure(exit) ? "error" : "ok")
      if (Exit.isFailure(exit)) throw new Error(failureMessage(exit.cause))
      // Whatever a plugin or MCP server sent, bounded before the SDK stores it and the model reads it.
      return boundedOutput(exit.value)
    }
  }

const streamed = (
  runtime: Runtime.Runtime<never>,
  contextOf: (toolCallId: string) => ToolCallContext,
  name: string,
  source: ToolSource["kind"],
  stream: NonNullable<ToolDefinition["stream"]>,
) =>
  async function* (input: unknown, options: CallOptions) {
    const reports = stream(input, contextOf(options.toolCallId))
    const iterator = Stream.toAsyncIterableRuntime(runtime)(reports)[Symbol.asyncIterator]()
    // Ending the iterator interrupts the stream's fiber (the agent's model call is aborted).
    const abort = () => void iterator.return?.()
    options.abortSignal?.addEventListener("abort", abort, { once: true })
    try {
      while (true) {
        const next = await iterator.next().catch((error: unknown) => {
          KernelMetrics.countToolCall(source, "error")
          throw new Error(error instanceof ToolExecutionError ? error.message : `${name} failed unexpectedly`)
        })
        if (next.done === true) return void KernelMetrics.countToolCall(source, "ok")
        yield boundedOutput(next.value)
      }
    } finally {
      options.abortSignal?.removeEventListener("abort", abort)
      await iterator.return?.()
    }
  }
