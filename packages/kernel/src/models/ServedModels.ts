import { Clock, Duration, Effect, Either, Fiber, type Scope } from "effect"
import { redactText, redactUrl } from "../net/UrlRedaction.js"
import type { ModelListRequest } from "./Providers.js"

/**
 * The models OpenAI-compatible servers say they serve (`GET <baseURL>/models`), for `GET
 * /api/models`. Asking is best effort: a server that is down, slow or answers garbage costs at
 * most `timeout` and yields `Left(reason)` (the caller falls back to its suggestions). Answers
 * are cached per provider, and concurrent callers share one request.
 */

export interface Settings {
  /** How long a list is reused. */
  readonly ttl: Duration.DurationInput
  /** How long a failure is reused before asking again (a local server may have started meanwhile). */
  readonly failureTtl: Duration.DurationInput
  /** How long one request may take, body included. */
  readonly timeout: Duration.DurationInput
  /** Larger bodies are refused (OpenRouter's list of ~400 models with prices is ~1.5 MB). */
  readonly maxBytes: number
  /** Ids past this many are dropped. */
  readonly maxModels: number
}

export const defaults: Settings = {
  ttl: "5 minutes",
  failureTtl: "30 seconds",
  timeout: "3 seconds",
  maxBytes: 8 * 1024 * 1024,
  maxModels: 500,
}

const maxIdLength = 256
const controlCharacter = /\p{Cc}/u

/**
 * The model ids of a list: OpenAI's `{ data: [{ id }] }`, or a bare array of `{ id }` (Together
 * answers that). Ids that are not plain strings are skipped, duplicates dropped, at most `max`
 * kept. `undefined` when the body is neither shape.
 */
export const parseModelList = (body: unknown, max: number): ReadonlyArray<string> | undefined => {
  const entries = Array.isArray(body)
    ? body
    : typeof body === "object" && body !== null && Array.isArray((body as { data?: unknown }).data)
      ? ((body as { data: Array<unknown> }).data as Array<unknown>)
      : undefined
  if (entries === undefined) return undefined
  const ids = new Set<string>()
  for (const entry of entries) {
    if (ids.size >= max) break
    const id = typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined
    if (typeof id !== "string") continue
    const trimmed = id.trim()
    if (trimmed !== "" && trimmed.length <= maxIdLength && !controlCharacter.test(trimmed)) ids.add(trimmed)
  }
  return [...ids]
}

/** The body as text, or `undefined` once it passes `maxBytes` (the rest is not read). */
const readCapped = async (response: Response, maxBytes: number): Promise<string | undefined> => {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN)
  if (declared > maxBytes || response.body === null) {
    await response.body?.cancel()
    return declared > maxBytes ? undefined : ""
  }
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ""
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      return undefined
    }
    text += decoder.decode(value, { stream: true })
  }
}

/** Why a fetch failed, without the URL (undici's "fetch failed" hides the reason in `cause`). */
const describeFailure = (error: unknown) => {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  if (typeof cause?.code === "string") return cause.code
  // undici names the URL in some messages ("…includes credentials: http://user:pw@…").
  if (typeof cause?.message === "string") return redactText(cause.message)
  return redactText(error instanceof Error ? error.message : String(error))
}

/** Where a warning may point: the URL without credentials or query values. */
const shownUrl = (url: string) => (URL.canParse(url) ? redactUrl(url) : "(invalid URL)")

const ask = (fetch: typeof globalThis.fetch, request: ModelListRequest, settings: Settings) =>
  Effect.tryPromise({
    try: async (signal): Promise<Either.Either<ReadonlyArray<string>, string>> => {
      const response = await fetch(request.url, {
        headers: { accept: "application/json", ...request.headers },
        signal,
      })
      if (!response.ok) {
        await response.body?.cancel()
        return Either.left(`HTTP ${response.status}`)
      }
      const text = await readCapped(response, settings.maxBytes)
      if (text === undefined) return Either.left(`the answer is larger than ${settings.maxBytes} bytes`)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return Either.left("the answer is not JSON")
      }
      const ids = parseModelList(body, settings.maxModels)
      return ids === undefined ? Either.left("the answer is not a model list") : Either.right(ids)
    },
    catch: describeFailure,
  }).pipe(
    Effect.timeoutFail({
      duration: settings.timeout,
      onTimeout: () => `no answer within ${Duration.format(Duration.decode(settings.timeout))}`,
    }),
    Effect.catchAll((reason) => Effect.succeed(Either.left(reason))),
  )

interface Entry {
  readonly fiber: Fiber.Fiber<Either.Either<ReadonlyArray<string>, string>>
  /** `at` is Infinity while the request runs: callers join it. */
  readonly expiry: { at: number }
}

/**
 * A cache of model lists keyed by provider id, asking with `fetch`. Requests run in `scope` when
 * given (closing it cancels them), else as daemons.
 */
export const make = (settings: Settings, fetch: typeof globalThis.fetch, scope?: Scope.Scope) => {
  const entries = new Map<string, Entry>()
  const warned = new Set<string>()
  const lock = Effect.unsafeMakeSemaphore(1)
  const ttl = Duration.toMillis(Duration.decode(settings.ttl))
  const failureTtl = Duration.toMillis(Duration.decode(settings.failureTtl))

  const fetchAndRemember = (key: string, request: ModelListRequest, expiry: Entry["expiry"]) =>
    ask(fetch, request, settings).pipe(
      Effect.tap((result) =>
        Effect.gen(function* () {
          expiry.at = (yield* Clock.currentTimeMillis) + (Either.isRight(result) ? ttl : failureTtl)
          if (Either.isRight(result)) return warned.delete(key)
          // Once per failing streak: GET /api/models is polled by pickers, the log must not be.
          if (request.probe || warned.has(key)) return
          warned.add(key)
          yield* Effect.logWarning(
            `the models served by provider ${key} are unavailable (GET ${shownUrl(request.url)}: ${result.left}); listing its suggestions`,
          )
        }),
      ),
    )

  /** The ids the server lists, or why not; never fails, never takes longer than `timeout`. */
  const list = (key: string, request: ModelListRequest) =>
    lock
      .withPermits(1)(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const cached = entries.get(key)
          if (cached !== undefined && cached.expiry.at > now) return cached.fiber
          const expiry = { at: Number.POSITIVE_INFINITY }
          // Not the caller's child: a caller that goes away must not cancel what others wait for.
          const asking = fetchAndRemember(key, request, expiry)
          const fiber = yield* scope === undefined ? Effect.forkDaemon(asking) : Effect.forkIn(asking, scope)
          entries.set(key, { fiber, expiry })
          return fiber
        }),
      )
      .pipe(Effect.flatMap(Fiber.join), Effect.withSpan("ServedModels.list", { attributes: { provider: key } }))

  /** Drops what is cached for `key` (its provider's values changed): the next `list` asks afresh. */
  const forget = (key: string) =>
    lock.withPermits(1)(
      Effect.sync(() => {
        entries.delete(key)
        warned.delete(key)
      }),
    )

  return { list, forget }
}
