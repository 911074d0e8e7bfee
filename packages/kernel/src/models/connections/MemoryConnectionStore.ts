import { Clock, Effect, Layer } from "effect"
import { ConnectionStore, type StoredConnection } from "./ConnectionStore.js"

/** `ConnectionStore` in this process's memory: connections are lost at exit. */
export const make = Effect.sync(() => {
  const rows = new Map<string, StoredConnection>()
  return ConnectionStore.of({
    list: Effect.sync(() => [...rows.values()].sort((a, b) => (a.provider < b.provider ? -1 : 1))),
    put: (provider, sealed) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const row = { provider, sealed, updatedAt: new Date(now) }
        rows.set(provider, row)
        return row
      }),
    remove: (provider) => Effect.sync(() => rows.delete(provider)),
  })
})

export const layer: Layer.Layer<ConnectionStore> = Layer.effect(ConnectionStore, make)
