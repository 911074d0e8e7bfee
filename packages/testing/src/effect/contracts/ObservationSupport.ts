import type { ObservationStore as Module } from "@aide/kernel/storage"

const base = Date.parse("2030-01-01T00:00:00.000Z")
/** A fixed instant `minutes` on. */
export const at = (minutes: number) => new Date(base + minutes * 60_000)

export const entry = (threadId: string, messageId: string, tokens: number, minutes = 0): Module.LedgerEntry => ({
  threadId,
  messageId,
  tokens,
  createdAt: at(minutes),
})

export const ids = (set: ReadonlySet<string>) => [...set].sort()
