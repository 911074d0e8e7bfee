import { Effect, Layer, Option } from "effect"
import type { Counted, Reflection, StoredChunk } from "./internal/memoryRows.js"
import { type Chunk, type LedgerEntry, ObservationStore, type RecordKey, type RecordRow } from "./ObservationStore.js"

/**
 * `ObservationStore` in this process's memory, the same rules as `SqlObservationStore` (its
 * tables become maps). Every method runs without yielding, so each is as atomic as the SQL
 * transactions; a thread's counted messages go with `forgetThreads` (no trigger here).
 */
export const make = Effect.sync(() => {
  const records = new Map<RecordKey, RecordRow>()
  const counted = new Map<string, Counted>()
  const chunks = new Map<string, StoredChunk>()
  const reflectionsOf = new Map<RecordKey, Array<Reflection>>()
  const usageByDay = new Map<string, number>()

  const entryKey = (key: RecordKey, threadId: string, messageId: string) => `${key}\u0000${threadId}\u0000${messageId}`
  const countedOf = (key: RecordKey) => [...counted.values()].filter((entry) => entry.recordKey === key)
  const chunksOf = (key: RecordKey) =>
    [...chunks.values()].filter((chunk) => chunk.recordKey === key).sort((a, b) => a.seq - b.seq)
  const patch = (key: RecordKey, change: Partial<RecordRow>) => {
    const record = records.get(key)
    if (record !== undefined) records.set(key, { ...record, ...change })
  }
  const holds = (key: RecordKey, token: string) => records.get(key)?.claim?.token === token
  const free = { claim: null } as const
  const pending = (key: RecordKey) =>
    countedOf(key)
      .filter((entry) => entry.chunkId === null)
      .sort(
        (a, b) =>
          a.createdAt.getTime() - b.createdAt.getTime() ||
          a.threadId.localeCompare(b.threadId) ||
          a.messageId.localeCompare(b.messageId),
      )
  const toChunk = ({ recordKey: _, seq: __, reflectedIn: ___, ...chunk }: StoredChunk): Chunk => chunk

  const store: ObservationStore["Type"] = {
    ensureRecord: (key, scope, id, now) =>
      Effect.sync(() => {
        const existing = records.get(key)
        if (existing !== undefined) return existing
        const record: RecordRow = {
          key,
          id,
          scope,
          observationTokenCount: 0,
          generationCount: 0,
          totalTokensObserved: 0,
          lastObservedAt: null,
          updatedAt: now,
          claim: null,
          failures: 0,
          pausedUntil: null,
        }
        records.set(key, record)
        return record
      }),
    record: (key) => Effect.sync(() => Option.fromNullable(records.get(key))),
    latestThreadRecord: Effect.sync(() =>
      Option.fromNullable(
        [...records.values()]
          .filter((record) => record.scope === "thread")
          .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0],
      ),
    ),
    ingest: (key, entries) =>
      Effect.sync(() => {
        let added = 0
        for (const entry of entries) {
          const id = entryKey(key, entry.threadId, entry.messageId)
          if (counted.has(id)) continue
          // A fork's copy of a message already observed is observed too: it is the same message.
          const observed = countedOf(key).find((other) => other.messageId === entry.messageId && other.chunkId !== null)
          counted.set(id, { ...entry, recordKey: key, chunkId: observed?.chunkId ?? null })
          added++
        }
        return added
      }),
    countedIds: (key, threadId) =>
      Effect.sync(
        (): ReadonlySet<string> =>
          new Set(countedOf(key).flatMap((entry) => (entry.threadId === threadId ? [entry.messageId] : []))),
      ),
    observedIds: (key, threadId) =>
      Effect.sync(
        (): ReadonlySet<string> =>
          new Set(
            countedOf(key).flatMap((entry) =>
              entry.threadId === threadId && entry.chunkId !== null ? [entry.messageId] : [],
            ),
          ),
      ),
    pendingTokens: (key) =>
      Effect.sync(() => {
        const perMessage = new Map<string, number>()
        for (const entry of pending(key))
          perMessage.set(entry.messageId, Math.max(perMessage.get(entry.messageId) ?? 0, entry.tokens))
        return [...perMessage.values()].reduce((sum, tokens) => sum + tokens, 0)
      }),
    pendingEntries: (key, maxTokens) =>
      Effect.sync(() => {
        const seen = new Set<string>()
        const picked: Array<LedgerEntry> = []
        let total = 0
        for (const { recordKey: _, chunkId: __, ...entry } of pending(key)) {
          if (seen.has(entry.messageId)) continue
          if (picked.length > 0 && total >= maxTokens) break
          seen.add(entry.messageId)
          total += entry.tokens
          picked.push(entry)
        }
        return picked
      }),
    claim: (key, kind, token, now, until) =>
      Effect.sync(() => {
        const record = records.get(key)
        if (record === undefined) return false
        if (record.claim !== null && record.claim.until.getTime() >= now.getTime()) return false
        if (record.pausedUntil !== null && record.pausedUntil.getTime() > now.getTime()) return false
        patch(key, { claim: { kind, token, until } })
        return true
      }),
    renew: (key, token, until) =>
      Effect.sync(() => {
        const claim = records.get(key)?.claim
        if (claim?.token !== token) return false
        patch(key, { claim: { ...claim, until } })
        return true
      }),
    release: (key, token, outcome) =>
      Effect.sync(() => {
        const record = records.get(key)
        if (record === undefined || !holds(key, token)) return
        if (!outcome.failed) return patch(key, free)
        const failures = record.failures + 1
        patch(key, {
          ...free,
          failures,
          pausedUntil: failures >= outcome.pauseAfter ? outcome.pauseUntil : record.pausedUntil,
        })
      }),
    releaseAllClaims: Effect.sync(() => {
      for (const key of records.keys()) patch(key, free)
    }),
    commitObservation: (key, token, chunk) =>
      Effect.sync(() => {
        if (!holds(key, token)) return Option.none()
        const ids = new Set(chunk.messageIds)
        const covered = countedOf(key).filter((entry) => entry.chunkId === null && ids.has(entry.messageId))
        const perMessage = new Map<string, number>()
        for (const entry of covered) {
          entry.chunkId = chunk.id
          perMessage.set(entry.messageId, entry.tokens)
        }
        const coveredTokens = [...perMessage.values()].reduce((sum, tokens) => sum + tokens, 0)
        const record = records.get(key)
        if (covered.length > 0 && record !== undefined) {
          const seq = Math.max(0, ...chunksOf(key).map((stored) => stored.seq)) + 1
          chunks.set(chunk.id, { ...chunk, messageIds: [...perMessage.keys()], recordKey: key, seq, reflectedIn: null })
          patch(key, {
            observationTokenCount: record.observationTokenCount + chunk.tokens,
            totalTokensObserved: record.totalTokensObserved + coveredTokens,
            lastObservedAt: chunk.createdAt,
            updatedAt: chunk.createdAt,
          })
        }
        patch(key, { ...free, failures: 0 })
        return Option.some({ coveredTokens })
      }),
    activeLog: (key) =>
      Effect.sync(() => {
        const generation = records.get(key)?.generationCount ?? 0
        const reflection = reflectionsOf.get(key)?.find((candidate) => candidate.generation === generation)
        return {
          reflection: generation === 0 || reflection === undefined ? null : reflection,
          chunks: chunksOf(key)
            .filter((stored) => stored.reflectedIn === null)
            .map(toChunk),
        }
      }),
    commitReflection: (key, token, reflection) =>
      Effect.sync(() => {
        if (!holds(key, token)) return false
        const active = chunksOf(key).filter((stored) => stored.reflectedIn === null)
        const absorbed = new Set(reflection.absorbed)
        // The log changed since it was read: this reflection may hold what must be forgotten.
        const unchanged =
          (records.get(key)?.generationCount ?? -1) === reflection.generation - 1 &&
          active.length === absorbed.size &&
          active.every((stored) => absorbed.has(stored.id))
        if (!unchanged) return false
        const { generation, content, tokens } = reflection
        reflectionsOf.set(key, [...(reflectionsOf.get(key) ?? []), { generation, content, tokens }])
        for (const stored of active) stored.reflectedIn = generation
        patch(key, {
          ...free,
          generationCount: generation,
          observationTokenCount: tokens,
          updatedAt: reflection.createdAt,
          failures: 0,
        })
        return true
      }),
    reflections: (key) =>
      Effect.sync(() => (reflectionsOf.get(key) ?? []).map(({ generation, content }) => ({ generation, content }))),
    forgetOrphans: (now) =>
      Effect.sync(() => {
        const used = new Set([...counted.values()].map((entry) => entry.chunkId))
        const orphans = [...chunks.values()].filter((stored) => !used.has(stored.id))
        const keys = [...new Set(orphans.map((orphan) => orphan.recordKey))]
        for (const key of keys) {
          const mine = orphans.filter((orphan) => orphan.recordKey === key)
          const reflected = mine.flatMap((orphan) => (orphan.reflectedIn === null ? [] : [orphan.reflectedIn]))
          let generation = records.get(key)?.generationCount ?? 0
          if (reflected.length > 0) {
            // Every reflection from the first that absorbed a forgotten chunk holds some of it.
            const first = Math.min(...reflected)
            reflectionsOf.set(
              key,
              (reflectionsOf.get(key) ?? []).filter((r) => r.generation < first),
            )
            for (const stored of chunksOf(key)) if ((stored.reflectedIn ?? 0) >= first) stored.reflectedIn = null
            generation = first - 1
          }
          for (const orphan of mine) chunks.delete(orphan.id)
          const base = reflectionsOf.get(key)?.find((r) => r.generation === generation)?.tokens ?? 0
          const rest = chunksOf(key)
            .filter((stored) => stored.reflectedIn === null)
            .reduce((sum, stored) => sum + stored.tokens, 0)
          patch(key, { generationCount: generation, observationTokenCount: base + rest, updatedAt: now })
        }
        return keys
      }),
    forgetThreads: (threadIds) =>
      Effect.sync(() => {
        const gone = new Set(threadIds)
        for (const [id, entry] of counted) if (gone.has(entry.threadId)) counted.delete(id)
      }),
    inheritFork: (sourceKey, targetKey, threadId, newId, now) =>
      Effect.sync(() => {
        if (chunksOf(targetKey).length > 0) return 0
        const open = countedOf(targetKey).filter((entry) => entry.threadId === threadId && entry.chunkId === null)
        const tokensOf = new Map(open.map((entry) => [entry.messageId, entry.tokens]))
        let seq = 0
        let observationTokens = 0
        let covered = 0
        for (const source of chunksOf(sourceKey)) {
          const ids = source.messageIds
          if (ids.length === 0 || !ids.every((id) => tokensOf.has(id))) continue
          const id = newId()
          seq++
          const { content, tokens } = source
          chunks.set(id, {
            id,
            threadId,
            messageIds: ids,
            content,
            tokens,
            createdAt: now,
            recordKey: targetKey,
            seq,
            reflectedIn: null,
          })
          for (const entry of open) if (ids.includes(entry.messageId)) entry.chunkId = id
          observationTokens += tokens
          for (const messageId of ids) {
            covered += tokensOf.get(messageId) ?? 0
            tokensOf.delete(messageId)
          }
        }
        const record = records.get(targetKey)
        if (seq > 0 && record !== undefined) {
          patch(targetKey, {
            observationTokenCount: observationTokens,
            totalTokensObserved: record.totalTokensObserved + covered,
            lastObservedAt: now,
            updatedAt: now,
          })
        }
        return seq
      }),
    usage: (day) => Effect.sync(() => usageByDay.get(day) ?? 0),
    addUsage: (day, tokens) => Effect.sync(() => void usageByDay.set(day, (usageByDay.get(day) ?? 0) + tokens)),
  }
  return ObservationStore.of(store)
})

export const layer: Layer.Layer<ObservationStore> = Layer.effect(ObservationStore, make)
