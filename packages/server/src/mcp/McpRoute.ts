import { McpEndpoint } from "@aide/kernel"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import * as McpChallenge from "./McpChallenge.js"

/** Headers of the hop, not of the request: a web `Request` refuses or ignores them. */
const hopHeaders = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"])

const opening = new TextEncoder().encode(": open\n\n")

/**
 * An SSE answer starting with a comment (clients skip it): the server writes its head with the
 * first bytes, and a listening stream (`GET /mcp`) may carry nothing for a long while, so
 * without one the client would wait that long (the transport's keep-alive, 15 s) for the head.
 */
const openAtOnce = (response: Response) => {
  const body = response.body
  if (body === null || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response
  const reader = body.getReader()
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(opening),
    pull: async (controller) => {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
  return new Response(stream, { status: response.status, headers: response.headers })
}

/**
 * `/mcp` (GET, POST, DELETE), outside the HttpApi: the MCP endpoint speaks JSON-RPC and SSE of
 * its own. The server's middleware still runs first (Host and Origin checks, body limit and JSON
 * checks, CORS); the request then goes to `McpEndpoint.handle` as a web `Request`.
 */
export const layer = (options: {
  /** `AIDE_PUBLIC_URL`; unset, the origin the client used (its Host passed the Host check). */
  readonly publicUrl: string | undefined
}) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const endpoint = yield* McpEndpoint.McpEndpoint
      const fixed = options.publicUrl === undefined ? undefined : McpChallenge.challenge(options.publicUrl)
      const handler = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const url = HttpServerRequest.toURL(request)
        if (Option.isNone(url)) return HttpServerResponse.unsafeJson({ error: "invalid URL" }, { status: 400 })
        // Already read and checked by ErrorHandling (size, depth): its cached text.
        const body = request.method === "POST" ? yield* Effect.orElseSucceed(request.text, () => "") : undefined
        const headers = Object.entries(request.headers).filter(([name]) => !hopHeaders.has(name))
        const response = yield* Effect.promise(() =>
          endpoint.handle(
            new Request(url.value, { method: request.method, headers, ...(body === undefined ? {} : { body }) }),
            { challenge: fixed ?? McpChallenge.challenge(url.value.origin) },
          ),
        )
        return HttpServerResponse.fromWeb(openAtOnce(response))
      })
      yield* router.all("/mcp", handler)
    }),
  )
