import type { TokenPair } from "./types.js"

/** Where the client keeps its token pair. May be synchronous or asynchronous. */
export interface TokenStore {
  readonly get: () => TokenPair | null | Promise<TokenPair | null>
  /** `null` clears the store (logout, session lost). */
  readonly set: (tokens: TokenPair | null) => void | Promise<void>
}

/** The default: tokens live as long as the client object. */
export const memoryTokenStore = (initial: TokenPair | null = null): TokenStore => {
  let tokens = initial
  return {
    get: () => tokens,
    set: (next) => {
      tokens = next
    },
  }
}

/**
 * Browsers: the pair survives reloads under `key` in `localStorage`. Tabs share it; a tab that
 * loses a refresh race to another sees the other's new pair (read on each request) and retries.
 */
export const localStorageTokenStore = (key = "aide.tokens"): TokenStore => ({
  get: () => {
    const raw = globalThis.localStorage?.getItem(key)
    if (raw == null) return null
    try {
      return JSON.parse(raw) as TokenPair
    } catch {
      return null
    }
  },
  set: (tokens) => {
    if (tokens === null) globalThis.localStorage?.removeItem(key)
    else globalThis.localStorage?.setItem(key, JSON.stringify(tokens))
  },
})
