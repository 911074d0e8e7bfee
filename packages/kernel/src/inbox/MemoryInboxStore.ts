import { Effect, Layer, Option } from "effect"
import type { InboxMessage } from "./Inbox.js"
import { InboxStore } from "./InboxStore.js"

interface Entry {
  readonly message: InboxMessage
  /** Breaks ties of `createdAt`, as the SQL store's `seq`. */
  readonly seq: number
  readonly leaseOwner: string | null
  readonly leaseUntil: number | null
}

/** `InboxStore` in this process's memory: each method runs without yielding, so leases are decided atomically. */
export const make = Effect.sync(() => {
  const entries = new Map<string, Entry>()
  let seq = 0
  const newestFirst = (a: Entry, b: Entry) =>
    b.message.createdAt.getTime() - a.message.createdAt.getTime() || b.seq - a.seq
  const free = (entry: Entry, now: Date) => entry.leaseUntil === null || entry.leaseUntil <= now.getTime()
  const set = (entry: Entry) => {
    entries.set(entry.message.id, entry)
    return entry.message
  }

  return InboxStore.of({
    insert: (message) =>
      Effect.sync(() =>
        set({
          message: { ...message, read: false, archivedAt: null },
          seq: ++seq,
          leaseOwner: null,
          leaseUntil: null,
        }),
      ),
    list: (archived) =>
      Effect.sync(() =>
        [...entries.values()]
          .filter((entry) => (entry.message.archivedAt !== null) === archived)
          .sort(newestFirst)
          .map((entry) => entry.message),
      ),
    get: (id) => Effect.sync(() => Option.map(Option.fromNullable(entries.get(id)), (entry) => entry.message)),
    update: (id, patch, at) =>
      Effect.sync(() => {
        const entry = entries.get(id)
        if (entry === undefined) return Option.none()
        const archivedAt =
          patch.archived === undefined
            ? entry.message.archivedAt
            : patch.archived
              ? (entry.message.archivedAt ?? at)
              : null
        const read = patch.read ?? entry.message.read
        return Option.some(set({ ...entry, message: { ...entry.message, read, archivedAt } }))
      }),
    remove: (id) => Effect.sync(() => entries.delete(id)),
    claim: (id, owner, now, until) =>
      Effect.sync(() => {
        const entry = entries.get(id)
        if (entry === undefined || entry.message.status !== "pending" || !free(entry, now)) return Option.none()
        return Option.some(set({ ...entry, leaseOwner: owner, leaseUntil: until.getTime() }))
      }),
    renew: (id, owner, until) =>
      Effect.sync(() => {
        const entry = entries.get(id)
        if (entry === undefined || entry.leaseOwner !== owner || entry.message.status !== "pending") return false
        set({ ...entry, leaseUntil: until.getTime() })
        return true
      }),
    finish: (id, owner, status) =>
      Effect.sync(() => {
        const entry = entries.get(id)
        if (entry === undefined || entry.leaseOwner !== owner || entry.message.status !== "pending") return
        set({ ...entry, message: { ...entry.message, status }, leaseOwner: null, leaseUntil: null })
      }),
    release: (id, owner) =>
      Effect.sync(() => {
        const entry = entries.get(id)
        if (entry === undefined || entry.leaseOwner !== owner || entry.message.status !== "pending") return
        set({ ...entry, leaseOwner: null, leaseUntil: null })
      }),
    pendingUnleased: (now, limit) =>
      Effect.sync(() =>
        [...entries.values()]
          .filter((entry) => entry.message.status === "pending" && free(entry, now))
          .sort((a, b) => -newestFirst(a, b))
          .slice(0, limit)
          .map((entry) => entry.message.id),
      ),
  })
})

export const layer: Layer.Layer<InboxStore> = Layer.effect(InboxStore, make)
