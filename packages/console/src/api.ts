import { type AideClient, AideError, createAideClient, localStorageTokenStore } from "@aide/client"

type Listener = () => void
const sessionListeners = new Set<Listener>()

/** The console's one client: same origin, tokens in localStorage, refreshed by the client itself. */
export const client: AideClient = createAideClient({
  baseUrl: globalThis.location?.origin ?? "",
  tokenStore: localStorageTokenStore("aide.console.tokens"),
  onSessionLost: () => {
    for (const listener of sessionListeners) listener()
  },
})

/** Called when a refresh is refused (revoked, expired): the app goes back to the login screen. */
export const onSessionLost = (listener: Listener) => {
  sessionListeners.add(listener)
  return () => void sessionListeners.delete(listener)
}

/** A message for the user from anything a call may throw. */
export const errorText = (error: unknown): string => {
  if (error instanceof AideError) return error.message
  if (error instanceof Error) return error.message
  return String(error)
}
