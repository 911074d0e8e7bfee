import { Context, Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { ModelRegistry } from "../models/ModelRegistry.js"
import type { StoredMessage } from "../threads/Threads.js"

// Imported on first use, like Chat's: no AI SDK at server start.
const loadAi = () => import("ai")

/** Names a thread after its first exchange. */
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
export const cleanTitle = (raw: string): Option.Option<string> => {
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
            const { streamText } = await loadAi()
            // Our own controller, aborted however reading ends: leaving the loop cancels only the
            // text stream, while the SDK's other branches of the response would go on reading the
            // provider (and buffering what it sends) for as long as it sends.
            const call = new AbortController()
            const abort = () => call.abort()
            signal.addEventListener("abort", abort)
            const result = streamText({
              model,
              system: "You name conversations. Answer with a title of at most six words, nothing else.",
              prompt: `Conversation:\n${transcript}\n\nTitle:`,
              maxOutputTokens: 24,
              // One attempt: a title is not worth retries, and the fallback title stays on failure.
              maxRetries: 0,
              abortSignal: call.signal,
              onError: () => undefined,
            })
            let text = ""
            try {
              for await (const delta of result.textStream) {
                text += delta
                if (text.length > maxTitleAnswer) break
              }
            } finally {
              signal.removeEventListener("abort", abort)
              call.abort()
            }
            return text
          }).pipe(Effect.timeout(titleTimeout))
          return cleanTitle(text)
        }).pipe(Effect.orElseSucceed(() => Option.none<string>())),
    })
  }),
)

/** No model call: threads keep the fallback title (the first words of the first message). */
export const layerFallback = Layer.succeed(TitleGenerator, { generate: () => Effect.succeed(Option.none()) })
