import type { IncomingMessage } from "node:http"
import { HttpApi, HttpApp, HttpMiddleware, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Metric, MetricBoundaries, MetricLabel, Option } from "effect"
import { AideApi } from "../api/AideApi.js"

export const requests = Metric.counter("aide_http_requests_total", {
  description: "HTTP requests by method, route (the pattern, not the URL) and status.",
  incremental: true,
})
export const duration = Metric.histogram(
  "aide_http_request_duration_seconds",
  MetricBoundaries.exponential({ start: 0.001, factor: 2, count: 14 }),
  "Time to the response's head (a stream's body is not included).",
)

interface Route {
  readonly method: string
  readonly pattern: string
  readonly match: RegExp
}

/** Routes outside the HttpApi, whose patterns are labels too. */
const extraRoutes: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/metrics"],
  ["POST", "/api/schedule/run-due"],
  ["GET", "/api/openapi.json"],
  ["GET", "/api/docs"],
  ["GET", "/api/docs/scalar.js"],
  ["*", "/app/*"],
  ["*", "/wh/*"],
]

const compile = (method: string, pattern: string): Route => ({
  method,
  pattern,
  match: new RegExp(
    `^${pattern
      .split("/")
      .map((part) =>
        part.startsWith(":") ? "[^/]+" : part === "*" ? ".*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/")}$`,
  ),
})

const routes: ReadonlyArray<Route> = (() => {
  const found: Array<Route> = []
  HttpApi.reflect(AideApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => found.push(compile(endpoint.method, endpoint.path)),
  })
  for (const [method, pattern] of extraRoutes) found.push(compile(method, pattern))
  // Literal segments first: `/api/threads/search` before `/api/threads/:threadId`.
  return found.sort(
    (a, b) => (b.pattern.match(/\/[^:*/][^/]*/g)?.length ?? 0) - (a.pattern.match(/\/[^:*/][^/]*/g)?.length ?? 0),
  )
})()

const cache = new Map<string, string>()
/** The label of a request: its route's pattern, `other` for anything unknown (bounded cardinality). */
export const routeOf = (method: string, url: string): string => {
  const path = url.split("?", 1)[0]!
  const key = `${method} ${path}`
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  const route = routes.find(
    (candidate) => (candidate.method === method || candidate.method === "*") && candidate.match.test(path),
  )
  const label = route?.pattern ?? "other"
  // Concrete paths (ids) are many: only a bounded number are remembered.
  if (cache.size < 10_000) cache.set(key, label)
  return label
}

const labels = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
const labelsFor = (method: string, route: string, status: number) => {
  const key = `${method} ${route} ${status}`
  let found = labels.get(key)
  if (found === undefined) {
    found = [
      MetricLabel.make("method", method),
      MetricLabel.make("route", route),
      MetricLabel.make("status", String(status)),
    ]
    labels.set(key, found)
  }
  return found
}

const count = (request: HttpServerRequest.HttpServerRequest, status: number, started: number) => {
  requests.unsafeUpdate(1, labelsFor(request.method, routeOf(request.method, request.url), status))
  duration.unsafeUpdate((performance.now() - started) / 1000, [])
}

const startedAt = new WeakMap<HttpServerRequest.HttpServerRequest, number>()

/** A failure's answer is made further out (the HttpApi's error encoding): counted once it is. */
const countAnswer = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
  Effect.sync(() => {
    count(request, response.status, startedAt.get(request) ?? performance.now())
    return response
  })

/**
 * Counts every request by route and status, and times it to its response head. A response is
 * counted where it comes back; a failure through a pre-response hook, once it is an answer.
 * For the Web-standard handler, whose requests have no Node message to stamp; the Node server
 * uses the cheaper {@link layer}.
 */
export const middleware = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const started = performance.now()
    return app.pipe(
      Effect.map((response) => {
        count(request, response.status, started)
        return response
      }),
      Effect.tapErrorCause(() => {
        startedAt.set(request, started)
        return HttpApp.appendPreResponseHandler(countAnswer)
      }),
    )
  }),
)

const arrival = Symbol.for("@aide/server/RequestMetrics/arrival")

/** Notes when a Node request arrived, for {@link layer} to time it (called as the server receives it). */
export const stamp = (message: IncomingMessage): void => {
  ;(message as IncomingMessage & { [arrival]?: number })[arrival] = performance.now()
}

/**
 * `middleware`'s counts, taken where each answer is written instead: the platform hands every
 * response, success or encoded failure, to the pre-response handlers just before writing its
 * head. Set once in the server's runtime, it costs a request one call and no Effect of its own
 * (the middleware cost a flatMap, a map and an error handler each, ~3% of a small request).
 * Requests are timed from their `stamp`.
 */
export const layer: Layer.Layer<never> = Layer.fiberRefLocallyScopedWith(
  HttpApp.currentPreResponseHandlers,
  (handlers) => {
    const counted: HttpApp.PreResponseHandler = (request, response) => {
      const message = request.source as { [arrival]?: number }
      count(request, response.status, message[arrival] ?? performance.now())
      return Effect.succeed(response)
    }
    return Option.match(handlers, {
      onNone: () => Option.some(counted),
      onSome: (previous) =>
        Option.some((request, response) =>
          Effect.flatMap(previous(request, response), (answer) => counted(request, answer)),
        ),
    })
  },
)
