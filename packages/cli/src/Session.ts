import { type AideClient, createAideClient, type TokenStore } from "@aide/client"
import * as Credentials from "./Credentials.js"
import { AuthError } from "./Output.js"

/** A token store backed by the CLI's credentials file, for one server URL. */
const fileTokenStore = (url: string): TokenStore => ({
  get: () => (Credentials.load(url) as Awaited<ReturnType<TokenStore["get"]>>) ?? null,
  set: (tokens) => {
    if (tokens === null) Credentials.clear(url)
    else Credentials.save(url, tokens)
  },
})

export interface Connection {
  readonly url: string
  readonly client: AideClient
}

/** A client for `--url` (or the stored server), with the tokens `aide login` stored for it. */
export const connect = (option: string | undefined): Connection => {
  const url = Credentials.serverUrl(option)
  const client = createAideClient({ baseUrl: url, tokenStore: fileTokenStore(url) })
  return { url, client }
}

/** As `connect`, for commands that need a session: exit 3 with the fix when there is none. */
export const connectLoggedIn = (option: string | undefined): Connection => {
  const connection = connect(option)
  if (Credentials.load(connection.url) === undefined)
    throw new AuthError(`not logged in to ${connection.url}: run aide login --url ${connection.url}`)
  return connection
}
