import { Clock, Duration, Effect, Schema } from "effect"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import { splitModel } from "../../config/MemoryConfig.js"
import { loadAi } from "../../models/LoadAi.js"
import { ModelRegistry } from "../../models/ModelRegistry.js"
import type { StorageError } from "../../storage/StorageError.js"
import { ObservationStore } from "./ObservationStore.js"
import { dayOf } from "./OwnerTime.js"
import * as Tokens from "./Tokens.js"

/** A call of the memory model failed (provider error, timeout, unknown model). */
export class MemoryModelError extends Schema.TaggedError<MemoryModelError>()("MemoryModelError", {
  message: Schema.String,
}) {}

/** The day's `memory.observationalMemory.dailyTokenBudget` would be passed: no call is made. */
export class MemoryBudgetSpent extends Schema.TaggedError<MemoryBudgetSpent>()("MemoryBudgetSpent", {
  day: Schema.String,
  spent: Schema.Number,
  budget: Schema.Number,
}) {}

/** Longest a memory model call may take; its claim is renewed meanwhile. */
const callTimeout = Duration.minutes(2)

/** Most tokens one observer or reflector answer may take. */
export const maxOutputTokens = 4_000

/**
 * One call of the memory model (`memory.model`, else the operator's), within the daily budget:
 * no call starts when the day's spending plus the prompt's estimate would pass the budget; each
 * call is charged with the provider's reported usage (the prompt's estimate when it reports none).
 */
export const make = Effect.gen(function* () {
  const models = yield* ModelRegistry
  const store = yield* ObservationStore
  let budgetNoticeDay = ""

  return (
    config: AppConfigDocument,
    request: { readonly system: string; readonly prompt: string; readonly temperature: number },
  ): Effect.Effect<string, MemoryModelError | MemoryBudgetSpent | StorageError> =>
    Effect.gen(function* () {
      const budget = config.memory.observationalMemory.dailyTokenBudget
      const day = dayOf(new Date(yield* Clock.currentTimeMillis), config.timezone)
      // The prompt is known; the answer is charged once its size is.
      const estimate = Tokens.ofText(request.system) + Tokens.ofText(request.prompt)
      const spent = yield* store.usage(day)
      if (spent + estimate > budget) {
        if (budgetNoticeDay !== day) {
          budgetNoticeDay = day
          yield* Effect.logWarning("memory: today's token budget is spent; memory waits for tomorrow").pipe(
            Effect.annotateLogs({ day, spent, budget }),
          )
        }
        return yield* new MemoryBudgetSpent({ day, spent, budget })
      }
      const selection = config.memory.model === undefined ? config.models.operator : splitModel(config.memory.model)
      const { model } = yield* models
        .languageModel({ provider: selection.provider, model: selection.model })
        .pipe(Effect.mapError((error) => new MemoryModelError({ message: error.message })))
      const result = yield* Effect.tryPromise({
        try: async (signal) => {
          const { generateText } = await loadAi()
          return generateText({
            model,
            system: request.system,
            prompt: request.prompt,
            temperature: request.temperature,
            maxOutputTokens,
            maxRetries: 0,
            abortSignal: signal,
          })
        },
        catch: (error) => new MemoryModelError({ message: error instanceof Error ? error.message : String(error) }),
      }).pipe(
        Effect.timeoutFail({
          duration: callTimeout,
          onTimeout: () => new MemoryModelError({ message: "the memory model did not answer in time" }),
        }),
      )
      yield* store.addUsage(day, result.usage.totalTokens ?? estimate)
      return result.text
    })
})

export type MemoryModelCall = Effect.Effect.Success<typeof make>
