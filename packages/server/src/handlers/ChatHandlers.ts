import { Chat, Ids, type StreamHub } from "@aide/kernel"
import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import {
  BadRequest,
  Conflict,
  InternalError,
  NotFound,
  ServiceUnavailable,
  TooManyRequests,
  UnsupportedMediaType,
} from "../api/ApiErrors.js"
import * as SseSubscribers from "../http/SseSubscribers.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

export interface ChatHandlerOptions {
  /** Interval of keep-alive comments on an idle stream. */
  readonly heartbeat?: Duration.DurationInput
  /** How far (bytes) a reconnected client may fall behind before it is dropped; default 1 MiB. */
  readonly maxLagBytes?: number
}

/**
 * The `Last-Event-ID` of a reconnect: undefined when absent, or when it is no event id of ours
 * (not a non-negative integer): such a request is a plain reconnect, not the rest of a stream.
 */
const lastEventId = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers["last-event-id"]
  if (header === undefined || !/^\d{1,15}$/.test(header.trim())) return undefined
  return Number(header.trim())
}

/** Seconds a client refused for capacity should wait: a slot frees when a subscriber leaves or a run ends. */
const retryAfterSeconds = "10"

/** The caps of `StreamHub.attach`, as answered: the stream's to its client (429), the server's (503). */
const subscriberLimit = (error: StreamHub.TooManySubscribers) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", retryAfterSeconds)),
  ).pipe(
    Effect.zipRight(
      Effect.fail<TooManyRequests | ServiceUnavailable>(
        error.scope === "stream"
          ? new TooManyRequests({ error: "too many subscribers to this stream" })
          : new ServiceUnavailable({ error: "too many open streams on this server" }),
      ),
    ),
  )

/** Failures of starting a run, as `send` and `approve` both answer them. */
const runErrors = {
  ChatBusy: () => new Conflict({ error: "A response is already streaming in this thread" }),
  InvalidChatRequest: (error: { readonly message: string }) => new BadRequest({ error: error.message }),
  // A model the host has not configured is its setup, not a provider failure: a 4xx saying what to set.
  ChatModelError: (error: { readonly message: string; readonly notConfigured?: boolean | undefined }) =>
    error.notConfigured === true ? new Conflict({ error: error.message }) : new InternalError({ error: error.message }),
  // Not SPEC's 500: a type the model cannot take is the client's to fix (docs/api-decisions.md).
  UnsupportedAttachment: (error: { readonly message: string }) => new UnsupportedMediaType({ error: error.message }),
} as const

export const layer = (options: ChatHandlerOptions = {}) =>
  HttpApiBuilder.group(AideApi, "chat", (handlers) =>
    Effect.gen(function* () {
      const chat = yield* Chat.Chat
      const ids = yield* Ids.Ids
      const heartbeat = Duration.decode(options.heartbeat ?? Duration.seconds(15))
      // Answers and reconnects alike are written without a fiber or Stream per event (SseSubscribers).
      const subscribers = yield* SseSubscribers.make({
        heartbeat,
        ...(options.maxLagBytes === undefined ? {} : { maxLagBytes: options.maxLagBytes }),
      })
      return handlers
        .handle("send", ({ payload, request }) =>
          Effect.gen(function* () {
            // SPEC: X-Thread-Id is always present — on errors too (a 500 still created the thread).
            const threadId = payload.threadId ?? (yield* ids.uuid)
            yield* HttpApp.appendPreResponseHandler((_request, response) =>
              Effect.succeed(HttpServerResponse.setHeader(response, "x-thread-id", threadId)),
            )
            const newThread = payload.threadId === undefined
            return yield* chat.send({ threadId, newThread, parts: payload.parts, messageId: payload.messageId }).pipe(
              Effect.flatMap((run) => subscribers.follow(request, run)),
              Effect.catchTags(runErrors),
              dieOnStorageError,
            )
          }),
        )
        .handle("approve", ({ payload, request }) =>
          Effect.gen(function* () {
            const { runId, threadId, toolCallId, messageId, approved } = payload
            // Echoed only when it can be a thread id (POST /api/chat's rule): a CR, LF or control
            // character makes Node refuse the header and the request never answers; 100 KB of
            // id overflows the client's header limit. Such a thread does not exist anyway: 404.
            if (/^[\w.:-]{1,100}$/.test(threadId)) {
              yield* HttpApp.appendPreResponseHandler((_request, response) =>
                Effect.succeed(HttpServerResponse.setHeader(response, "x-thread-id", threadId)),
              )
            }
            return yield* chat.approve({ runId, threadId, toolCallId, messageId, approved }).pipe(
              Effect.flatMap((run) => subscribers.follow(request, run)),
              Effect.catchTags({
                ...runErrors,
                RunNotFound: () => new NotFound({ error: "Run not found" }),
                ToolCallNotFound: () => new NotFound({ error: "Tool call not found in run" }),
                RunNotPending: () => new Conflict({ error: "Run is not waiting for approval" }),
                ToolCallDecided: () => new Conflict({ error: "Tool call already decided" }),
              }),
              dieOnStorageError,
            )
          }),
        )
        .handle("resume", ({ path, request }) =>
          subscribers
            .respond(request, path.threadId, lastEventId(request))
            .pipe(Effect.catchTag("TooManySubscribers", subscriberLimit)),
        )
        .handle("stop", ({ path }) =>
          chat.stop(path.threadId).pipe(Effect.map((stopped) => ({ success: true as const, stopped }))),
        )
    }),
  )
