import { Schema } from "effect"

/** SPEC "Memory record" (docs/memory.md defines each counter exactly). */
export const MemoryRecord = Schema.Struct({
  id: Schema.String,
  scope: Schema.Literal("resource", "thread"),
  generationCount: Schema.Number.annotations({ description: "Reflections in the active log's history" }),
  observationTokenCount: Schema.Number.annotations({ description: "Tokens of the active observation log" }),
  pendingMessageTokens: Schema.Number.annotations({ description: "Tokens of the scope's unobserved messages" }),
  totalTokensObserved: Schema.Number.annotations({
    description: "Message tokens covered by committed observations, lifetime (only grows)",
  }),
  isObserving: Schema.Boolean.annotations({ description: "The observer is running now" }),
  isReflecting: Schema.Boolean.annotations({ description: "The reflector is running now" }),
  lastObservedAt: Schema.NullOr(Schema.Date),
  updatedAt: Schema.Date,
}).annotations({ identifier: "MemoryRecord" })
export type MemoryRecord = typeof MemoryRecord.Type

/** SPEC "Thresholds". */
export const MemoryThresholds = Schema.Struct({
  scope: Schema.Literal("resource", "thread"),
  messageTokens: Schema.Number,
  observationTokens: Schema.Number,
}).annotations({ identifier: "MemoryThresholds" })
export type MemoryThresholds = typeof MemoryThresholds.Type

/** `GET /api/memory/record`: both null while observational memory is off. */
export const MemoryRecordView = Schema.Struct({
  record: Schema.NullOr(MemoryRecord),
  thresholds: Schema.NullOr(MemoryThresholds),
}).annotations({ identifier: "MemoryRecordView" })
export type MemoryRecordView = typeof MemoryRecordView.Type
