import { Clock, Effect, Layer, Option } from "effect"
import { McpOAuthStore, type PendingAuthorization } from "./McpOAuthStore.js"

interface Client {
  readonly serverUrl: string
  readonly clientInformation: string | undefined
  readonly tokens: string | undefined
}

/** Values go in and out as JSON text, as in the SQL store: a caller's later mutation never leaks in. */
const copy = (text: string | undefined): unknown => (text === undefined ? undefined : JSON.parse(text))

/** `McpOAuthStore` in this process's memory: registrations and tokens are lost at exit (authorize again). */
export const make = Effect.sync(() => {
  const clients = new Map<string, Client>()
  const pending = new Map<string, PendingAuthorization>()

  const read = (name: "clientInformation" | "tokens") => (serverId: string, serverUrl: string) =>
    Effect.sync(() => {
      const client = clients.get(serverId)
      return client?.serverUrl === serverUrl ? copy(client[name]) : undefined
    })

  // Saving for another URL than the stored one drops the other value: it belonged to the old URL.
  const save = (name: "clientInformation" | "tokens") => (serverId: string, serverUrl: string, value: unknown) =>
    Effect.sync(() => {
      const old = clients.get(serverId)
      const kept: Client =
        old?.serverUrl === serverUrl ? old : { serverUrl, clientInformation: undefined, tokens: undefined }
      clients.set(serverId, { ...kept, [name]: JSON.stringify(value) })
    })

  return McpOAuthStore.of({
    clientInformation: read("clientInformation"),
    saveClientInformation: save("clientInformation"),
    tokens: read("tokens"),
    saveTokens: save("tokens"),
    clear: (serverId, what) =>
      Effect.sync(() => {
        const client = clients.get(serverId)
        if (client === undefined) return
        if (what === "all") clients.delete(serverId)
        else if (what === "client") clients.set(serverId, { ...client, clientInformation: undefined })
        else clients.set(serverId, { ...client, tokens: undefined })
      }),
    addPending: (state, authorization) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          for (const [key, entry] of pending) if (entry.expiresAt.getTime() <= now) pending.delete(key)
          pending.set(state, authorization)
        }),
      ),
    takePending: (state) =>
      Effect.sync(() => {
        const entry = pending.get(state)
        pending.delete(state)
        return Option.fromNullable(entry)
      }),
    dropPending: (serverId) =>
      Effect.sync(() => {
        for (const [key, entry] of pending) if (entry.serverId === serverId) pending.delete(key)
      }),
  })
})

export const layer: Layer.Layer<McpOAuthStore> = Layer.effect(McpOAuthStore, make)
