import {
  type Headers,
  type HttpApp,
  HttpServerError,
  HttpServerRequest,
  type HttpServerResponse,
  HttpTraceContext,
} from "@effect/platform"
import { Effect, Option } from "effect"
import { routeOf } from "./RequestMetrics.js"

/**
 * The request headers a span keeps. An allowlist, not the platform's denylist (`authorization`,
 * `cookie`, `set-cookie`, `x-api-key`): webhooks prove themselves with headers of their
 * platform's choosing (`x-telegram-bot-api-secret-token`, `x-aide-signature`,
 * `x-hub-signature-256`…), and a header not named here is not exported, whatever it holds.
 */
export const requestHeaders: ReadonlyArray<string> = ["accept", "content-length", "content-type", "host", "user-agent"]

/**
 * The response headers a span keeps (`set-cookie` carries a session: never). `x-request-id` ties
 * an unexpected failure's span to its log line.
 */
export const responseHeaders: ReadonlyArray<string> = [
  "content-length",
  "content-type",
  "x-request-id",
  "x-run-id",
  "x-thread-id",
]

const annotateHeaders = (
  span: { readonly attribute: (key: string, value: unknown) => void },
  prefix: string,
  headers: Headers.Headers,
  names: ReadonlyArray<string>,
) => {
  for (const name of names) {
    const value = headers[name]
    if (value !== undefined) span.attribute(`${prefix}${name}`, value)
  }
}

/** The path of a request URL: the query (OAuth `code`/`state`, `?access_token=`…) never leaves. */
const pathOf = (url: string) => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/**
 * A server span per request, in place of the platform's `HttpMiddleware.tracer` (which records
 * `url.full` and `url.query` with their values and every header outside a short denylist, before
 * anything is authenticated). It records method, route, path, scheme, status, client address and
 * the {@link requestHeaders}/{@link responseHeaders} allowlists; never a query or a body.
 *
 * Every request starts a trace of its own. A caller's `traceparent` (or `b3`) is kept as a span
 * link, not adopted as the parent: the span starts before the request's credential is checked, and
 * an unauthenticated caller must not graft the server's spans (their timing and names) into a
 * trace of its choosing, nor set its flags. A collector shows the link, so a traced client's trace
 * stays one step away.
 */
export const middleware = (app: HttpApp.Default): HttpApp.Default =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const caller = HttpTraceContext.fromHeaders(request.headers)
    const path = pathOf(request.url)
    return Effect.useSpan(
      `http.server ${request.method}`,
      {
        kind: "server",
        root: true,
        captureStackTrace: false,
        links: Option.isSome(caller) ? [{ _tag: "SpanLink", span: caller.value, attributes: {} }] : [],
      },
      (span) => {
        span.attribute("http.request.method", request.method)
        span.attribute("http.route", routeOf(request.method, request.url))
        span.attribute("url.path", path)
        const url = HttpServerRequest.toURL(request)
        if (Option.isSome(url)) span.attribute("url.scheme", url.value.protocol.slice(0, -1))
        if (request.headers["user-agent"] !== undefined) {
          span.attribute("user_agent.original", request.headers["user-agent"])
        }
        annotateHeaders(span, "http.request.header.", request.headers, requestHeaders)
        if (request.remoteAddress._tag === "Some") span.attribute("client.address", request.remoteAddress.value)
        return Effect.onExit(Effect.withParentSpan(app, span), (exit) =>
          Effect.sync(() => {
            const response: HttpServerResponse.HttpServerResponse = HttpServerError.exitResponse(exit)
            span.attribute("http.response.status_code", response.status)
            annotateHeaders(span, "http.response.header.", response.headers, responseHeaders)
          }),
        )
      },
    )
  })
