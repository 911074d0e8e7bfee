import { Effect, Layer, Schema } from "effect"
import { ToolExecutionError, ToolRegistry } from "../tools/ToolRegistry.js"
import * as TypedTool from "../tools/TypedTool.js"
import { Memory } from "./Memory.js"

const WorkingMemoryInput = Schema.Struct({
  action: Schema.Literal("append", "replace").annotations({
    description:
      "append: add `text` as a new line; replace: change the one exact occurrence of `search` into `replacement`",
  }),
  text: Schema.optional(Schema.String.annotations({ description: "append: the line(s) to add" })),
  search: Schema.optional(
    Schema.String.annotations({ description: "replace: the exact text to change (quote enough of it to be unique)" }),
  ),
  replacement: Schema.optional(
    Schema.String.annotations({ description: "replace: its new text (empty to delete it)" }),
  ),
})

/**
 * `update_working_memory`: the model keeps the owner's notes up to date. Only appends and exact
 * replacements, never a blind overwrite of what other conversations wrote; offered only while
 * working memory is on.
 */
export const updateWorkingMemory = Effect.gen(function* () {
  const memory = yield* Memory
  return TypedTool.make({
    name: "update_working_memory",
    description:
      "Updates the owner's working memory (the notes shown to you in <working_memory>): append a new " +
      "fact, or replace an exact piece of text that changed. Keep it short and factual.",
    parameters: WorkingMemoryInput,
    execute: (input) => {
      const edit =
        input.action === "append"
          ? input.text === undefined || input.text.trim() === ""
            ? undefined
            : ({ kind: "append", text: input.text } as const)
          : input.search === undefined || input.replacement === undefined
            ? undefined
            : ({ kind: "replace", search: input.search, replacement: input.replacement } as const)
      if (edit === undefined) {
        return Effect.fail(
          new ToolExecutionError({
            message: "append needs a non-blank text; replace needs search and replacement",
          }),
        )
      }
      return memory.editWorkingMemory(edit).pipe(
        Effect.map((document) => ({ version: document.version, bytes: Buffer.byteLength(document.content, "utf8") })),
        Effect.catchAll((error) =>
          Effect.fail(
            new ToolExecutionError({
              message: error._tag === "StorageError" ? "working memory could not be saved" : error.message,
            }),
          ),
        ),
      )
    },
  })
})

/**
 * Registers `update_working_memory` as the built-in source `memory`, offered only while working
 * memory is on: read at the start of every run, so switching it applies to the next one.
 */
export const layer: Layer.Layer<never, never, ToolRegistry | Memory> = Layer.scopedDiscard(
  Effect.gen(function* () {
    const registry = yield* ToolRegistry
    const memory = yield* Memory
    const tool = yield* updateWorkingMemory
    yield* registry.register({
      id: "memory",
      kind: "builtin",
      tools: Effect.map(memory.workingMemoryEnabled, (on) => (on ? [tool] : [])),
    })
  }),
)
