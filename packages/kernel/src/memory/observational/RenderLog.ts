import type { ActiveLog } from "./ObservationStore.js"

/** The active log as one text (the last reflection, then what was observed since); null when empty. */
export const renderLog = (log: ActiveLog): string | null => {
  const parts = [log.reflection?.content ?? "", ...log.chunks.map((chunk) => chunk.content)]
    .map((part) => part.trim())
    .filter((part) => part !== "")
  return parts.length === 0 ? null : parts.join("\n\n")
}
