import type { Chunk, LedgerEntry, RecordKey } from "../ObservationStore.js"

/** The rows of `MemoryObservationStore`: its tables are maps of these (the mutable fields are its updates). */

export interface Counted extends LedgerEntry {
  readonly recordKey: RecordKey
  chunkId: string | null
}

export interface StoredChunk extends Chunk {
  readonly recordKey: RecordKey
  readonly seq: number
  reflectedIn: number | null
}

export interface Reflection {
  readonly generation: number
  readonly content: string
  readonly tokens: number
}
