import type { ToolSet, UIMessage } from "ai"
import { Effect, Runtime } from "effect"
import { AppConfig } from "../../config/AppConfig.js"
import { Memory } from "../../memory/Memory.js"
import { Recall } from "../../memory/recall/Recall.js"
import { loadAi } from "../../models/LoadAi.js"
import { ModelRegistry } from "../../models/ModelRegistry.js"
import type { StoredMessage, ThreadWindow } from "../../threads/Threads.js"
import { AgentStep } from "../AgentStep.js"
import { rejectsNewestAttachment } from "../Attachments.js"
import { ChatModelError, UnsupportedAttachment } from "../ChatErrors.js"
import { errorMessage } from "../ChatMessages.js"
import type { AssistantMetadata } from "../ChatModel.js"
import { hasEarlierAttachments, isRequestRejection, usableHistory, withoutEarlierAttachments } from "../History.js"
import * as ModelStream from "../ModelStream.js"
import * as PromptRepair from "../PromptRepair.js"
import type * as RunBounds from "../RunBounds.js"
import { systemPrompt } from "../SystemPrompt.js"

export interface RunModelOptions {
  readonly maxRetries: number
  readonly bounds: RunBounds.RunBounds
}

/**
 * The model call of a run: the agent step (`AgentStep`) over the thread's history as a model can
 * take it (malformed stored attachments left out, with a warning), with the operator model, the
 * system prompt and the run's tools, opened up to its first content.
 */
export const make = (options: RunModelOptions) =>
  Effect.gen(function* () {
    const appConfig = yield* AppConfig
    const models = yield* ModelRegistry
    const memory = yield* Memory
    const recall = yield* Recall
    const agentStep = yield* AgentStep
    // Provider errors surface in the SDK's callbacks; log them through our logger, not stderr.
    const runtime = yield* Effect.runtime<never>()
    const logProviderError = (error: unknown): void => {
      Runtime.runFork(runtime)(Effect.logWarning("model provider error", errorMessage(error)))
    }

    /** The operator model as configured now: a run keeps the model it started with. */
    const resolve = Effect.gen(function* () {
      const config = yield* appConfig.get
      const resolved = yield* models.languageModel(config.models.operator).pipe(
        Effect.mapError(
          (error) =>
            new ChatModelError({
              message: `${error.message}, or choose a configured model (models.operator)`,
              notConfigured: true,
            }),
        ),
      )
      // Memory that cannot be read leaves this answer without it; it never fails the chat.
      const workingMemory = yield* memory.workingMemory.pipe(
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning("chat: working memory could not be read; answering without it", error), null),
        ),
      )
      return { config, workingMemory, ...resolved }
    })

    const open = (call: {
      readonly threadId: string
      readonly resolved: Effect.Effect.Success<typeof resolve>
      readonly history: ThreadWindow
      readonly tools: ToolSet
      readonly controller: AbortController
      readonly startedAt: Date
      readonly assistantId: string
      readonly metadata: AssistantMetadata
      readonly maxSteps: number
    }) =>
      Effect.gen(function* () {
        const { threadId, resolved } = call
        // Observed messages leave the context for the observations that cover them. Memory
        // that cannot be read leaves this answer with the whole history; it never fails the chat.
        const context = yield* memory.contextFor(threadId, call.history).pipe(
          Effect.catchAll((error) =>
            Effect.zipRight(
              Effect.logWarning("chat: observations could not be read; answering without them", error),
              Effect.map(call.history.all, (history) => ({ observations: null, history })),
            ),
          ),
        )
        const usable = yield* usableMessages(threadId, context.history)
        // Never fails: recall that errs or finds nothing leaves the prompt as it was.
        const recalled = yield* recall.forTurn({ threadId, history: call.history })
        const { convertToModelMessages } = yield* Effect.promise(loadAi)
        let providerError: unknown
        const begin = (messages: ReadonlyArray<StoredMessage>) =>
          Effect.gen(function* () {
            providerError = undefined
            const modelMessages = yield* Effect.tryPromise({
              try: () => convertToModelMessages(messages as unknown as Array<UIMessage>, { tools: call.tools }),
              catch: (error) => {
                providerError = error
                return new ChatModelError({ message: errorMessage(error) })
              },
            })
            const step = yield* agentStep.run({
              threadId,
              runId: call.metadata.runId,
              model: { model: resolved.model, settings: resolved.settings },
              system: systemPrompt(
                resolved.config,
                call.startedAt,
                resolved.workingMemory,
                context.observations,
                recalled,
              ),
              history: call.history.messages,
              messages: modelMessages,
              tools: call.tools,
              maxSteps: call.maxSteps,
              maxRetries: options.maxRetries,
              abortSignal: call.controller.signal,
              messageId: call.assistantId,
              metadata: call.metadata,
              onProviderError: (error) => {
                providerError = error
                logProviderError(error)
              },
            })
            return yield* ModelStream.open({ step, controller: call.controller, bounds: options.bounds })
          })
        // A request the provider refused because of an attachment of an earlier message (stored
        // before validation, or of a type this model cannot take) is retried without earlier
        // attachments: one bad file fails its own message, never every later one of the thread.
        // The newest message's own attachment refused by this model (`video/mp4` to a model that
        // takes only images) is the client's mistake: UnsupportedAttachment (415), not a failure.
        const newestRefused = (error: ChatModelError): Effect.Effect<never, ChatModelError | UnsupportedAttachment> =>
          rejectsNewestAttachment(providerError, usable)
            ? Effect.fail(
                new UnsupportedAttachment({ message: `the model cannot take this attachment: ${error.message}` }),
              )
            : Effect.fail(error)
        const attachmentsRefused = (error: ChatModelError) =>
          isRequestRejection(providerError) && hasEarlierAttachments(usable)
            ? Effect.zipRight(
                Effect.logWarning("chat: the model rejected the request; retrying without earlier attachments").pipe(
                  Effect.annotateLogs({ threadId, error: error.message }),
                ),
                begin(withoutEarlierAttachments(usable)).pipe(Effect.catchTag("ChatModelError", newestRefused)),
              )
            : newestRefused(error)
        // A history the SDK refuses as a whole (a stored part of a shape nobody foresaw): each
        // refused part is replaced by a note (PromptRepair), so one bad part never blocks its thread.
        const promptRefused = (error: ChatModelError) =>
          Effect.gen(function* () {
            const ai = yield* Effect.promise(loadAi)
            const fixed = yield* Effect.promise(() => PromptRepair.repair(ai, usable, call.tools))
            if (fixed.repaired.length === 0) return yield* attachmentsRefused(error)
            for (const part of fixed.repaired) {
              yield* Effect.logWarning("chat: a stored part the model request refused was left out").pipe(
                Effect.annotateLogs({
                  threadId,
                  messageId: part.messageId,
                  partIndex: part.index,
                  error: error.message,
                }),
              )
            }
            return yield* begin(fixed.messages).pipe(Effect.catchTag("ChatModelError", newestRefused))
          })
        return yield* begin(usable).pipe(
          Effect.catchTag("ChatModelError", (error) =>
            PromptRepair.isPromptRefusal(providerError) ? promptRefused(error) : attachmentsRefused(error),
          ),
        )
      })

    return { resolve, open } as const
  })

/** The history without the stored file parts a model cannot take, each logged. */
const usableMessages = (threadId: string, history: ReadonlyArray<StoredMessage>) =>
  Effect.gen(function* () {
    const usable = usableHistory(history)
    for (const part of usable.unusable) {
      yield* Effect.logWarning("chat: a stored file part was left out of the model request").pipe(
        Effect.annotateLogs({ threadId, messageId: part.messageId, partIndex: part.index, problem: part.problem }),
      )
    }
    return usable.messages
  })
