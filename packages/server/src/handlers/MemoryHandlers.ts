import { Memory } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, Conflict } from "../api/ApiErrors.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

export const layer = HttpApiBuilder.group(AideApi, "memory", (handlers) =>
  Effect.gen(function* () {
    const memory = yield* Memory.Memory
    return handlers
      .handle("getWorking", () => Effect.map(memory.workingMemory, (content) => ({ content })).pipe(dieOnStorageError))
      .handle("getObservations", ({ urlParams }) =>
        Effect.map(memory.observations(urlParams.threadId), (observations) => ({ observations })).pipe(
          dieOnStorageError,
        ),
      )
      .handle("getRecord", ({ urlParams }) => memory.record(urlParams.threadId).pipe(dieOnStorageError))
      .handle("putWorking", ({ payload }) =>
        memory.setWorkingMemory(payload.content).pipe(
          Effect.map((document) => ({ content: document.content })),
          Effect.catchTags({
            WorkingMemoryDisabled: (error) => new Conflict({ error: error.message }),
            WorkingMemoryEditRefused: (error) => new Conflict({ error: error.message }),
            WorkingMemoryTooLarge: (error) => new BadRequest({ error: error.message }),
            WorkingMemoryInvalid: (error) => new BadRequest({ error: error.message }),
          }),
          dieOnStorageError,
        ),
      )
  }),
)
