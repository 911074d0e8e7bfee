import { HttpApiBuilder, HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import { Cause, Effect, Option } from "effect"
import { wireErrorTags } from "../api/ApiErrors.js"
import { isOAuthPath } from "../mcp/McpOAuthRoutes.js"
import { checkJsonText, describeJsonBodyProblem, urlHasNul } from "./JsonLimits.js"
import { isStorageUnavailable, retryAfterSeconds } from "./StorageUnavailable.js"
import { describeDecodeError } from "./ValidationProblems.js"
import { isWebhookPath } from "./Webhooks.js"

/** What a client gets instead of HttpApi's own bodies: always `{ "error": ... }`. */
const errorResponse = (status: number, error: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson({ error }, { status, ...(headers ? { headers } : {}) })

/** Endpoints whose SPEC error for an absent or unreadable body is a specific code. */
const absentBodyErrors: Readonly<Record<string, string>> = {
  "/api/auth/refresh": "refresh_token_required",
  "/api/chat/approve": "runId and threadId are required",
}

/** The same, for paths with parameters. */
const absentBodyErrorPatterns: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/api\/threads\/[^/]+\/fork$/, "messageId is required"],
]

const absentBodyError = (path: string) =>
  absentBodyErrors[path] ?? absentBodyErrorPatterns.find(([pattern]) => pattern.test(path))?.[1]

/** Lower case, no escapes, query, duplicate or trailing slash: already what `pathOf` would make of it. */
const plainPath = /^(?:\/[a-z0-9_.:-]+)+$|^\/$/

/**
 * The path as the router matches it: it ignores case, trailing and duplicate slashes and decodes
 * escapes, so `/api/auth/refresh/` and `/API/auth/%72efresh` get the rules of `/api/auth/refresh`.
 */
const pathOf = (url: string) => {
  // Most URLs already are in that form: skip the regexes, decoding and copies for them.
  if (plainPath.test(url)) return url
  const query = url.indexOf("?")
  const path = (query === -1 ? url : url.slice(0, query)).replace(/\/{2,}/g, "/").replace(/(.)\/$/, "$1")
  try {
    return decodeURI(path).toLowerCase()
  } catch {
    return path.toLowerCase()
  }
}

const isJson = (contentType: string | undefined) =>
  contentType !== undefined && /^\s*application\/json\s*(;|$)/i.test(contentType)

const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0

let requestCounter = 0
const requestIdPrefix = Math.random().toString(36).slice(2, 8)

export interface ErrorHandlingOptions {
  /** Largest accepted request body in bytes; larger ones get 413. */
  readonly maxBodyBytes: number
  /** Larger limit for `POST /api/chat`, whose file parts carry attachments as data URLs. */
  readonly chatMaxBodyBytes?: number
}

/**
 * Reads the body (the text is cached: the endpoint's decoder gets the same string) and checks
 * it against JsonLimits before HttpApi parses and decodes it.
 */
const checkBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.text.pipe(
    Effect.map((text) => {
      const problem = checkJsonText(text)
      return problem === undefined ? undefined : errorResponse(400, describeJsonBodyProblem(problem))
    }),
    // Unreadable: handled below with the decoder's own failures (400), by its tag.
    Effect.orDie,
  )

/** The answer to a failure of the app: a `{ "error" }` body, or the failure itself when the contract encodes it. */
const answerFailure = <E>(
  request: HttpServerRequest.HttpServerRequest,
  cause: Cause.Cause<E>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, E> => {
  const failure = Cause.squash(cause) as { readonly _tag?: string; readonly reason?: string }
  switch (failure?._tag) {
    case "HttpApiDecodeError":
      return Effect.succeed(errorResponse(400, describeDecodeError(failure as HttpApiDecodeError)))
    case "RequestError":
      if (failure.reason === "Decode") {
        return Effect.succeed(
          errorResponse(400, absentBodyError(pathOf(request.url)) ?? "request body must be valid JSON"),
        )
      }
      break
    case "RouteNotFound":
      return Effect.succeed(errorResponse(404, "Not found"))
  }
  if (failure?._tag !== undefined && wireErrorTags.has(failure._tag) && !Cause.isDie(cause)) {
    return Effect.failCause(cause)
  }
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
  // PostgreSQL out of reach: the client retries later (the pool's acquire timeout bounds the wait).
  if (isStorageUnavailable(failure)) {
    return Effect.logWarning("database unavailable").pipe(
      Effect.annotateLogs({ method: request.method, url: request.url.split("?")[0] }),
      Effect.as(errorResponse(503, "storage_unavailable", { "retry-after": String(retryAfterSeconds) })),
    )
  }
  const requestId = `${requestIdPrefix}-${(++requestCounter).toString(36)}`
  return Effect.logError("unexpected failure", cause).pipe(
    Effect.annotateLogs({ requestId, method: request.method, url: request.url.split("?")[0] }),
    Effect.as(errorResponse(500, "internal_error", { "x-request-id": requestId })),
  )
}

/**
 * API-wide middleware: body size limit (413), nesting depth and NUL (400, JsonLimits), decode
 * failures and malformed JSON (400),
 * unknown routes (404), and anything unexpected (500 `internal_error`, logged with a request
 * id that is also sent as `X-Request-Id`). Errors of the contract pass through untouched.
 */
export const layer = (options: ErrorHandlingOptions) =>
  HttpApiBuilder.middleware((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      // Webhook bodies are the platforms' (form-encoded, any size up to their own limit), OAuth's
      // are form-encoded (RFC 6749): their routes read them raw; only the failure handling applies.
      const path = pathOf(request.url)
      const raw = isWebhookPath(path) || isOAuthPath(path)
      const declaredLength = Number(request.headers["content-length"] ?? 0)
      const limit =
        options.chatMaxBodyBytes !== undefined && path === "/api/chat" ? options.chatMaxBodyBytes : options.maxBodyBytes
      if (!raw && declaredLength > limit) {
        return Effect.succeed(
          errorResponse(413, `request body too large (limit ${limit} bytes)`, {
            connection: "close",
          }),
        )
      }
      const withBody = hasBody(request)
      // Bodies must be declared JSON. HttpApi would also decode form, multipart, text and
      // untyped bodies — the kinds a browser sends cross-site without a CORS preflight, so a
      // hostile page could, say, set the password of a fresh install. (Malformed multipart
      // would even fail as a defect.) Refuse them before anything parses them.
      if (!raw && withBody && !isJson(request.headers["content-type"])) {
        return Effect.succeed(errorResponse(415, "Content-Type must be application/json"))
      }
      if (urlHasNul(request.url)) return Effect.succeed(errorResponse(400, "URL must not contain NUL characters (%00)"))
      const checked =
        !raw && withBody
          ? Effect.flatMap(checkBody(request), (refused) => (refused === undefined ? app : Effect.succeed(refused)))
          : app
      // The limit only matters to a body's reader; providing it copies the request's context,
      // a cost every bodiless request (most of them: GETs) is spared.
      return (withBody ? HttpIncomingMessage.withMaxBodySize(checked, Option.some(limit)) : checked).pipe(
        Effect.catchAllCause((cause) => answerFailure(request, cause)),
      )
    }),
  )
