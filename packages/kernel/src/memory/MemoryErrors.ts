import { Schema } from "effect"

/*
 * The refusals of working-memory writes, part of the `Memory` contract: an implementation fails
 * `setWorkingMemory`/`editWorkingMemory` with these (never a defect); hosts map them (the server:
 * 409 and 400).
 */

/** `memory.workingMemory.enabled` is false: working memory can be neither read nor written. */
export class WorkingMemoryDisabled extends Schema.TaggedError<WorkingMemoryDisabled>()("WorkingMemoryDisabled", {}) {
  override get message() {
    return "Working memory is disabled (memory.enabled or memory.workingMemory.enabled is false)"
  }
}

/** A document over `maxWorkingBytes`. */
export class WorkingMemoryTooLarge extends Schema.TaggedError<WorkingMemoryTooLarge>()("WorkingMemoryTooLarge", {
  bytes: Schema.Number,
  limit: Schema.Number,
}) {
  override get message() {
    return `Working memory is limited to ${this.limit} bytes (UTF-8); this would be ${this.bytes}`
  }
}

/** A document with control characters (other than tab and line breaks): it goes into every prompt. */
export class WorkingMemoryInvalid extends Schema.TaggedError<WorkingMemoryInvalid>()("WorkingMemoryInvalid", {}) {
  override get message() {
    return "Working memory must not contain control characters (tab and line breaks are fine)"
  }
}

/** An edit that cannot apply: the text to replace is absent or ambiguous, or writers kept racing. */
export class WorkingMemoryEditRefused extends Schema.TaggedError<WorkingMemoryEditRefused>()(
  "WorkingMemoryEditRefused",
  { reason: Schema.String },
) {
  override get message() {
    return this.reason
  }
}
