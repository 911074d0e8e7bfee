import { MemoryRecord } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

export const WorkingMemory = Schema.Struct({
  content: Schema.NullOr(Schema.String).annotations({
    description: "The markdown document; null before the first write, and while working memory is disabled",
  }),
}).annotations({ identifier: "WorkingMemory" })

export const WorkingMemoryUpdate = Schema.Struct({
  content: Schema.propertySignature(
    Schema.String.annotations({ message: () => "content must be a string" }),
  ).annotations({
    description: "The whole new document (markdown, at most 16 KiB as UTF-8)",
    missingMessage: () => "content must be a string",
  }),
}).annotations({ identifier: "WorkingMemoryUpdate", message: () => "content must be a string" })

export const Observations = Schema.Struct({
  observations: Schema.NullOr(Schema.String).annotations({
    description: "The active observation log; null while observational memory is off or before the first observation",
  }),
}).annotations({ identifier: "Observations" })

/** Thread scope: which thread's memory (default: the most recently updated one). */
const ScopeParams = Schema.Struct({
  threadId: Schema.optional(Schema.String.pipe(Schema.minLength(1, { message: () => "threadId must not be empty" }))),
})

/** SPEC "Memory": working memory, observations and the memory record. */
export class MemoryApi extends HttpApiGroup.make("memory")
  .add(
    HttpApiEndpoint.get("getWorking", "/api/memory/working")
      .addSuccess(WorkingMemory)
      .annotate(OpenApi.Summary, "Read working memory"),
  )
  .add(
    HttpApiEndpoint.put("putWorking", "/api/memory/working")
      .setPayload(WorkingMemoryUpdate)
      .addSuccess(WorkingMemory)
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire)
      .annotate(OpenApi.Summary, "Overwrite working memory (409 while it is disabled)"),
  )
  .add(
    HttpApiEndpoint.get("getObservations", "/api/memory/observations")
      .setUrlParams(ScopeParams)
      .addSuccess(Observations)
      .addError(BadRequest.Wire)
      .annotate(OpenApi.Summary, "Read the observation log (null while observational memory is off)"),
  )
  .add(
    HttpApiEndpoint.get("getRecord", "/api/memory/record")
      .setUrlParams(ScopeParams)
      .addSuccess(MemoryRecord.MemoryRecordView)
      .addError(BadRequest.Wire)
      .annotate(OpenApi.Summary, "Read the memory record and thresholds (both null while observational memory is off)"),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The assistant's memory (Bearer token)") {}
