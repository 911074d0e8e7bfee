import { Chat, StreamHub } from "@aide/kernel"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option, Stream } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, Conflict, InternalError } from "../api/ApiErrors.js"

const encoder = new TextEncoder()
/** An SSE comment: keeps proxies and clients from timing out an idle stream. */
const keepAlive = encoder.encode(": keep-alive\n\n")

export interface ChatHandlerOptions {
  /** Interval of keep-alive comments on an idle stream. */
  readonly heartbeat?: Duration.DurationInput
}

const sseResponse = (threadId: string, frames: Stream.Stream<StreamHub.StreamFrame>, heartbeat: Duration.Duration) =>
  HttpServerResponse.stream(
    Stream.merge(
      frames.pipe(
        Stream.map((frame) => frame.bytes),
        Stream.concat(Stream.make(StreamHub.doneFrame)),
      ),
      Stream.tick(heartbeat).pipe(Stream.drop(1), Stream.as(keepAlive)),
      { haltStrategy: "left" },
    ),
    {
      contentType: "text/event-stream",
      headers: {
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
        "x-vercel-ai-ui-message-stream": "v1",
        "x-thread-id": threadId,
      },
    },
  )

const lastEventId = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers["last-event-id"]
  const id = header === undefined ? Number.NaN : Number(header)
  return Number.isInteger(id) && id >= 0 ? id : 0
}

export const layer = (options: ChatHandlerOptions = {}) =>
  HttpApiBuilder.group(AideApi, "chat", (handlers) =>
    Effect.gen(function* () {
      const chat = yield* Chat.Chat
      const hub = yield* StreamHub.StreamHub
      const heartbeat = Duration.decode(options.heartbeat ?? Duration.seconds(15))
      return handlers
        .handle("send", ({ payload }) =>
          chat.send({ threadId: payload.threadId, parts: payload.parts }).pipe(
            Effect.map((run) => sseResponse(run.threadId, run.frames, heartbeat)),
            Effect.catchTags({
              ChatBusy: () => new Conflict({ error: "A response is already streaming in this thread" }),
              InvalidChatRequest: (error) => new BadRequest({ error: error.message }),
              ChatModelError: (error) => new InternalError({ error: error.message }),
              StorageError: (error) => Effect.die(error),
            }),
          ),
        )
        .handle("resume", ({ path, request }) =>
          hub.subscribe(path.threadId, lastEventId(request)).pipe(
            Effect.map(
              Option.match({
                onNone: () => HttpServerResponse.empty({ status: 204 }),
                onSome: (frames) => sseResponse(path.threadId, frames, heartbeat),
              }),
            ),
          ),
        )
        .handle("stop", ({ path }) =>
          chat.stop(path.threadId).pipe(Effect.map((stopped) => ({ success: true as const, stopped }))),
        )
    }),
  )
