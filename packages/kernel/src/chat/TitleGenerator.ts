import type { LanguageModel } from "ai"
import { Context, Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { loadAi } from "../models/LoadAi.js"
import { ModelRegistry } from "../models/ModelRegistry.js"
import type { StoredMessage } from "../threads/Threads.js"

/**
 * Names a thread after its first exchange.
 *
 * Contract for an implementation (`Kernel.layer({ titles })`): chat calls `generate` in the
 * background after a new thread's first answer; it must never fail (none keeps the first words
 * of the message as the title) and should bound its own time.
 */
export class TitleGenerator extends Context.Tag("@aide/kernel/TitleGenerator")<
  TitleGenerator,
  {
    /** A short title for the conversation, or none (the caller keeps its fallback). */
    readonly generate: (messages: ReadonlyArray<StoredMessage>) => Effect.Effect<Option.Option<string>>
  }
>() {}

const textOf = (message: StoredMessage) =>
  (message.parts as ReadonlyArray<{ type?: string; text?: string }>)
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join(" ")

const maxTitleLength = 80
/** Characters of the model's answer read for a title; the rest is never downloaded. */
const maxTitleAnswer = 400
const titleTimeout = Duration.seconds(30)

/** Cleans a model's answer into a title: one line, no quotes or trailing period, bounded. */
const cleanTitle = (raw: string): Option.Option<string> => {
  const line = raw.split("\n").find((candidate) => candidate.trim() !== "") ?? ""
  const title = line
    .trim()
    .replace(/^title:\s*/i, "")
    .replace(/^["'“”«]+|["'“”»]+$/g, "")
    .replace(/\.$/, "")
    .trim()
  if (title === "") return Option.none()
  return Option.some(title.length <= maxTitleLength ? title : `${title.slice(0, maxTitleLength - 1).trimEnd()}…`)
}

const titleSystem = "You name conversations. Answer with a title of at most six words, nothing else."
const titlePrompt = (transcript: string) => `Conversation:\n${transcript}\n\nTitle:`

/** A provider's model object (`LanguageModelV2`/`V3`): streamed from directly. */
interface ProviderModel {
  readonly specificationVersion: string
  readonly doStream: (options: object) => PromiseLike<{ readonly stream: ReadableStream<unknown> }>
}

const isProviderModel = (model: LanguageModel): model is LanguageModel & ProviderModel =>
  typeof model === "object" &&
  (model.specificationVersion === "v2" || model.specificationVersion === "v3") &&
  typeof (model as Partial<ProviderModel>).doStream === "function"

/**
 * The model's answer to the title request, at most `maxTitleAnswer` characters of it. Straight
 * from the provider's stream when the model is a provider object: a title needs none of
 * `streamText`'s machinery (steps, tools, telemetry, a chain of web TransformStreams), which cost
 * several ms of CPU per new thread. A model given by id (a gateway) goes through `streamText`.
 */
const readTitle = async (model: LanguageModel, transcript: string, signal: AbortSignal): Promise<string> => {
  let text = ""
  if (isProviderModel(model)) {
    const { stream } = await model.doStream({
      prompt: [
        { role: "system", content: titleSystem },
        { role: "user", content: [{ type: "text", text: titlePrompt(transcript) }] },
      ],
      maxOutputTokens: 24,
      abortSignal: signal,
    })
    const reader = stream.getReader()
    try {
      while (text.length <= maxTitleAnswer) {
        const { done, value } = await reader.read()
        if (done) break
        const part = value as { readonly type?: unknown; readonly delta?: unknown; readonly error?: unknown }
        if (part.type === "text-delta" && typeof part.delta === "string") text += part.delta
        // A failed call keeps the fallback title.
        else if (part.type === "error") throw part.error
      }
    } finally {
      reader.cancel().catch(() => undefined)
    }
    return text
  }
  const { streamText } = await loadAi()
  const result = streamText({
    model,
    system: titleSystem,
    prompt: titlePrompt(transcript),
    maxOutputTokens: 24,
    // One attempt: a title is not worth retries, and the fallback title stays on failure.
    maxRetries: 0,
    abortSignal: signal,
    onError: () => undefined,
  })
  for await (const delta of result.textStream) {
    text += delta
    if (text.length > maxTitleAnswer) break
  }
  return text
}

/** Asks the operator model for a title (one short call); any failure leaves the fallback in place. */
export const layerModel = Layer.effect(
  TitleGenerator,
  Effect.gen(function* () {
    const appConfig = yield* AppConfig
    const models = yield* ModelRegistry
    return TitleGenerator.of({
      generate: (messages) =>
        Effect.gen(function* () {
          const config = yield* appConfig.get
          const { model } = yield* models.languageModel(config.models.operator)
          const transcript = messages
            .slice(0, 4)
            .map((message) => `${message.role}: ${textOf(message).slice(0, 1000)}`)
            .join("\n")
          // Streamed and bounded like a chat run: a model that answers for ever (or never) must
          // not hold memory or a connection for a title. Interruption (the timeout) aborts the call.
          const text = yield* Effect.tryPromise(async (signal) => {
            // Our own controller, aborted however reading ends: leaving the loop early must end the
            // provider call too, or it would go on reading (and buffering) for as long as it sends.
            const call = new AbortController()
            const abort = () => call.abort()
            signal.addEventListener("abort", abort)
            try {
              return await readTitle(model, transcript, call.signal)
            } finally {
              signal.removeEventListener("abort", abort)
              call.abort()
            }
          }).pipe(Effect.timeout(titleTimeout))
          return cleanTitle(text)
        }).pipe(Effect.orElseSucceed(() => Option.none<string>())),
    })
  }),
)

/** No model call: threads keep the fallback title (the first words of the first message). */
export const layerFallback = Layer.succeed(TitleGenerator, { generate: () => Effect.succeed(Option.none()) })
