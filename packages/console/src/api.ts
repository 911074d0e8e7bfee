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

/** The server's error codes, as a person would say them. */
const words: Record<string, string> = {
  invalid_credentials: "That password is not right.",
  unauthorized: "You are signed out: sign in again.",
  setup_required: "Choose a password first.",
  already_setup: "A password is set already: sign in with it.",
  too_many_requests: "Too many attempts: wait a minute, then try again.",
  internal_error: "Something went wrong on the server; its log says what.",
  network_error: "The server cannot be reached: check that Aide is running.",
  stream_lost: "The answer's connection dropped: reload to see the rest.",
  session_not_found: "That session has ended already.",
}

/** A sentence: capitalized when it starts with a plain word ("password must…"), with a full stop. */
const sentence = (text: string) => {
  const capital = /^[a-z]+\s/.test(text) ? text[0]!.toUpperCase() + text.slice(1) : text
  return /[.!?)]$/.test(capital) ? capital : `${capital}.`
}

/**
 * A message for the user from anything a call may throw: the server's words (never its status
 * code), its codes (`invalid_credentials`) said in words.
 */
export const errorText = (error: unknown): string => {
  if (error instanceof AideError) {
    const known = words[error.code]
    if (known !== undefined) return known
    const unconfigured = /^provider (\S+) is not configured: set (.+?)(, or choose.*)?$/.exec(error.code)
    if (unconfigured !== null)
      return `The model's provider (${unconfigured[1]}) is not configured: set ${unconfigured[2]} in Settings → Connections, or choose a configured model above.`
    if (error.status >= 500 && /^[A-Z][a-z]+( [A-Z][a-z]+)*$/.test(error.code))
      return "Something went wrong on the server; its log says what."
    return sentence(error.code)
  }
  if (error instanceof Error) return sentence(error.message.replace(/^\d{3}\s+/, ""))
  return String(error)
}
