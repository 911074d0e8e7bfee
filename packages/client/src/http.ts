import { AideError } from "./errors.js"
import type { TokenStore } from "./tokens.js"
import type { TokenPair } from "./types.js"

interface LockManagerLike {
  readonly request: <T>(name: string, callback: () => Promise<T>) => Promise<T>
}

export type Fetch = (input: string, init: RequestInit) => Promise<Response>

export interface HttpOptions {
  readonly baseUrl: string
  readonly tokenStore: TokenStore
  readonly fetch: Fetch
  readonly onSessionLost?: ((error: AideError) => void) | undefined
}

export interface RequestOptions {
  readonly method?: string
  readonly body?: unknown
  readonly query?: Record<string, string | number | boolean | undefined> | undefined
  readonly headers?: Record<string, string>
  /** Public routes (status, setup, login, refresh) carry no token and never refresh. */
  readonly auth?: boolean
  readonly signal?: AbortSignal | undefined
}

/**
 * The one place requests are made: the Bearer token from the store, and on a 401 one refresh
 * (shared by every request that fails meanwhile) and one retry.
 */
export const makeHttp = (options: HttpOptions) => {
  const base = options.baseUrl.replace(/\/+$/, "")
  // Single flight per refresh token: a refresh token is single-use, and presenting it twice
  // makes the server revoke the whole session as a reuse.
  let refreshing: { readonly from: string; readonly done: Promise<TokenPair> } | undefined

  const url = (path: string, query?: RequestOptions["query"]) => {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value))
    const search = params.toString()
    return `${base}${path}${search === "" ? "" : `?${search}`}`
  }

  const raw = async (path: string, init: RequestOptions, token: string | undefined): Promise<Response> => {
    const headers: Record<string, string> = { ...init.headers }
    if (init.body !== undefined) headers["content-type"] = "application/json"
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    try {
      return await options.fetch(url(path, init.query), {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      })
    } catch (cause) {
      if (init.signal?.aborted) throw cause
      throw new AideError(0, "network_error", `network error: ${String((cause as Error)?.message ?? cause)}`, { cause })
    }
  }

  const lose = async (error: AideError) => {
    await options.tokenStore.set(null)
    options.onSessionLost?.(error)
  }

  const rotate = async (refreshToken: string): Promise<TokenPair> => {
    // Another tab (a shared store) may have rotated this token already: take its pair.
    const stored = await options.tokenStore.get()
    if (stored !== null && stored.refreshToken !== refreshToken) return stored
    const response = await raw("/api/auth/refresh", { method: "POST", body: { refreshToken } }, undefined)
    if (!response.ok) {
      const error = await AideError.fromResponse(response)
      // Only a refused token ends the session; a 429 or 5xx leaves it for a retry.
      if (response.status === 401 || response.status === 400) await lose(error)
      throw error
    }
    const tokens = (await response.json()) as TokenPair
    await options.tokenStore.set(tokens)
    return tokens
  }

  // Browsers: tabs sharing a store take turns (Web Locks), so two tabs never present one token.
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks
  const lockName = `aide-refresh:${base}`

  const refreshWith = (refreshToken: string): Promise<TokenPair> => {
    if (refreshing?.from === refreshToken) return refreshing.done
    const done = locks === undefined ? rotate(refreshToken) : locks.request(lockName, () => rotate(refreshToken))
    const flight = { from: refreshToken, done }
    refreshing = flight
    done.catch((error: unknown) => {
      // A refresh that never reached a verdict (network, 429, 5xx) may be tried again.
      const status = (error as AideError).status
      if (status !== 400 && status !== 401 && refreshing === flight) refreshing = undefined
    })
    return done
  }

  /** Refreshes the stored pair now (single flight). */
  const refresh = async (): Promise<TokenPair> => {
    const tokens = await options.tokenStore.get()
    if (tokens === null) {
      const error = new AideError(401, "unauthorized", "not signed in")
      throw error
    }
    return refreshWith(tokens.refreshToken)
  }

  /**
   * The pair to send: a stored token already past its `expiresAt` is refreshed first (single
   * flight), so a page opened after the token expired makes one refresh instead of a 401 per
   * request. Not for a pair this client just received: with a clock far ahead of the server's,
   * every fresh pair looks expired, and the 401 path below is the judge then.
   */
  let received: string | undefined
  const usable = async (tokens: TokenPair | null): Promise<TokenPair | null> => {
    if (tokens === null || tokens.token === received) return tokens
    const expiresAt = Date.parse(String(tokens.expiresAt))
    if (!(expiresAt <= Date.now())) return tokens
    try {
      const next = await refreshWith(tokens.refreshToken)
      received = next.token
      return next
    } catch (error) {
      // Refused: the session is lost (onSessionLost ran); else (network, 5xx) try the request.
      const status = (error as AideError).status
      if (status === 400 || status === 401) throw error
      return tokens
    }
  }

  /** A request; protected ones retried once after a refresh when the token is refused. */
  const send = async (path: string, init: RequestOptions = {}): Promise<Response> => {
    if (init.auth === false) return raw(path, init, undefined)
    const tokens = await usable(await options.tokenStore.get())
    const response = await raw(path, init, tokens?.token)
    if (response.status !== 401 || tokens === null) return response
    // Another request may have refreshed already: retry with the newer pair, else refresh ours.
    const current = await options.tokenStore.get()
    const next = current !== null && current.token !== tokens.token ? current : await refreshWith(tokens.refreshToken)
    await response.body?.cancel().catch(() => {})
    return raw(path, init, next.token)
  }

  /** A request whose JSON answer is returned; error answers become `AideError`s. */
  const json = async <T>(path: string, init: RequestOptions = {}): Promise<T> => {
    const response = await send(path, init)
    if (!response.ok) throw await AideError.fromResponse(response)
    const text = await response.text()
    return (text === "" ? undefined : JSON.parse(text)) as T
  }

  return { send, json, refresh, url, lose }
}

export type Http = ReturnType<typeof makeHttp>
