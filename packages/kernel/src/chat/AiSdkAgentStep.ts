import type { ModelMessage, UIMessage } from "ai"
import { Effect, Layer } from "effect"
import { loadAi } from "../models/LoadAi.js"
import { AgentStep, type AgentStepInput, type AgentStepOutcome } from "./AgentStep.js"
import { errorMessage } from "./ChatMessages.js"

/** What the SDK reported when the stream ended: filled by its callbacks. */
interface Reported {
  responseMessage: UIMessage | undefined
  aborted: boolean
  usage: AgentStepOutcome["usage"]
  finishReason: string | undefined
}

/**
 * The AI SDK's `streamText` over the operator model: its tool loop (`stopWhen: stepCountIs`),
 * approvals through the tools' `needsApproval`, and `toUIMessageStream` continuing the last
 * assistant message of the history (a resumed run).
 */
export const make = AgentStep.of({
  run: (input: AgentStepInput) =>
    Effect.map(Effect.promise(loadAi), ({ stepCountIs, streamText }) => {
      const reported: Reported = {
        responseMessage: undefined,
        aborted: false,
        usage: {},
        finishReason: undefined,
      }
      const stream = streamText({
        model: input.model.model,
        system: input.system,
        messages: input.messages as Array<ModelMessage>,
        tools: input.tools,
        stopWhen: stepCountIs(input.maxSteps),
        abortSignal: input.abortSignal,
        maxRetries: input.maxRetries,
        onError: ({ error }) => input.onProviderError(error),
        ...input.model.settings,
      }).toUIMessageStream({
        originalMessages: input.history as unknown as Array<UIMessage>,
        // Continuing after an approval keeps the paused assistant message's id (the SDK takes
        // the last assistant message's id); a new answer gets this one.
        generateMessageId: () => input.messageId,
        messageMetadata: ({ part }) => {
          if (part.type === "finish") {
            reported.usage = part.totalUsage
            reported.finishReason = part.finishReason
          }
          return part.type === "start" ? input.metadata : undefined
        },
        onFinish: ({ responseMessage, isAborted }) => {
          reported.responseMessage = responseMessage
          reported.aborted = isAborted
        },
        onError: errorMessage,
      })
      return { stream, outcome: () => reported }
    }),
})

/** The default agent step: the AI SDK's `streamText`. */
export const layer: Layer.Layer<AgentStep> = Layer.succeed(AgentStep, make)
