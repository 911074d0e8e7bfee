import { AideError } from "./errors.js"
import type { TokenStore } from "./tokens.js"
import type { TokenPair } from "./types.js"

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

  const refreshWith = (refreshToken: string): Promise<TokenPair> => {
    if (refreshing?.from === refreshToken) return refreshing.done
    const done = (async () => {
      const response = await raw("/api/auth/refresh", { method: "POST", body: { refreshToken } }, undefined)
      if (!response.ok) {
        const error = await AideError.fromResponse(response)
        // Only a refused token ends the session; a network blip or a 429 leaves it for a retry.
        if (response.status === 401 || response.status === 400) await lose(error)
        throw error
      }
      const tokens = (await response.json()) as TokenPair
      await options.tokenStore.set(tokens)
      return tokens
    })()
    refreshing = { from: refreshToken, done }
    done.then(
      () => {},
      () => {},
    )
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

  /** A request; protected ones retried once after a refresh when the token is refused. */
  const send = async (path: string, init: RequestOptions = {}): Promise<Response> => {
    if (init.auth === false) return raw(path, init, undefined)
    const tokens = await options.tokenStore.get()
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
