import type { IncomingMessage, ServerResponse } from "node:http"
import { Auth } from "@aide/kernel"
import { Duration, Effect, Exit, Layer, Runtime } from "effect"
import * as HostCheck from "./HostCheck.js"
import * as SseSubscribers from "./SseSubscribers.js"

/**
 * Reconnects to chat streams (`GET /api/chat/:threadId/stream`) answered beside the Effect HTTP
 * stack: a request served by it keeps its fiber parked, with the continuations of every
 * middleware, for as long as the client stays (~12 KB, plus ~4 KB of `pipeline`), a third of an
 * idle subscriber's memory (bench/fanout.mjs). Here the checks run once and the hub's batches
 * are written to the connection as they come (SseSubscribers' `DirectSink`), with no fiber behind it.
 *
 * Only the plain case is taken: the canonical path without a query or body, an allowed Host and
 * Origin (HostCheck's own check), no CORS to answer, and a Bearer token that authenticates
 * to a stream that can be resumed now. Anything else (401, 204, 404, 421, 403, 429, 503, odd
 * spellings of the path) goes to the Effect stack unchanged, which answers it as before.
 */
export interface DirectRoutes {
  /**
   * Takes the request (true: it is answered, or passed to `fallback` later) or leaves it to the
   * caller (false). Set while the server runs.
   */
  handle?: ((request: IncomingMessage, response: ServerResponse, fallback: () => void) => boolean) | undefined
}

const streamPath = /^\/api\/chat\/([\w.:-]{1,100})\/stream$/
const bearerPrefix = /^bearer /i

/** `Last-Event-ID` as ChatHandlers reads it: undefined unless a non-negative integer. */
const lastEventId = (header: string | undefined) =>
  header === undefined || !/^\d{1,15}$/.test(header.trim()) ? undefined : Number(header.trim())

export interface DirectReconnectsOptions {
  readonly hostCheck: HostCheck.HostCheckOptions
  readonly heartbeat: Duration.DurationInput
  readonly maxLagBytes?: number | undefined
}

/** Fills `routes.handle` for the server's lifetime. */
export const layer = (routes: DirectRoutes, options: DirectReconnectsOptions) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      const subscribers = yield* SseSubscribers.make({
        heartbeat: options.heartbeat,
        ...(options.maxLagBytes === undefined ? {} : { maxLagBytes: options.maxLagBytes }),
      })
      const check = HostCheck.makeCheck(options.hostCheck)
      const cors = options.hostCheck.corsOrigins.length > 0
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())

      routes.handle = (request, response, fallback) => {
        if (request.method !== "GET") return false
        const match = streamPath.exec(request.url ?? "")
        if (match === null) return false
        const { headers } = request
        if (headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined) return false
        if (cors && headers.origin !== undefined) return false
        if (check(headers as Readonly<Record<string, string | undefined>>) !== undefined) return false
        const authorization = headers.authorization
        if (authorization === undefined || !bearerPrefix.test(authorization) || authorization.length <= 7) return false
        const threadId = match[1]!
        const fiber = runFork(
          auth
            .authenticate(authorization.slice(7))
            .pipe(
              Effect.zipRight(
                subscribers.direct(response, threadId, lastEventId(request.headersDistinct["last-event-id"]?.[0])),
              ),
            ),
        )
        fiber.addObserver((exit) => {
          if (!Exit.isSuccess(exit) || !exit.value) fallback()
        })
        return true
      }
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          routes.handle = undefined
        }),
      )
    }),
  )

/** The default keep-alive interval of chat streams, as ChatHandlers has it. */
export const defaultHeartbeat = Duration.seconds(15)
