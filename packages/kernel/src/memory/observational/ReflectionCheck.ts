import * as Tokens from "./Tokens.js"

/**
 * Whether a reflection may replace the log. Rejected (the old log kept): an empty one, one no
 * denser than the log, one that repeats itself (a model stuck in a loop inflated a peer's log
 * from 43k to 107k tokens), and one that drops more than a quarter of the high-priority lines.
 */

/** Share of high-priority (🔴) lines a reflection may drop (merging duplicates counts). */
const maxHighPriorityLoss = 0.25

const normalize = (line: string) =>
  line
    .replace(/^\s*-\s*(\d{1,2}:\d{2}\s*)?/, "")
    .trim()
    .toLowerCase()

const contentLines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("Date:"))

const highPriority = (text: string) => contentLines(text).filter((line) => line.includes("🔴")).length

/** A line repeated 3 times or more, or more than a third of the lines duplicates. */
const isDegenerate = (text: string): boolean => {
  const lines = contentLines(text).map(normalize)
  if (lines.length === 0) return true
  const counts = new Map<string, number>()
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1)
  const duplicates = lines.length - counts.size
  return [...counts.values()].some((count) => count >= 3) || duplicates * 3 > lines.length
}

export type Verdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "empty" | "not-denser" | "degenerate" | "lossy" }

export const check = (before: string, after: string): Verdict => {
  if (after.trim() === "") return { ok: false, reason: "empty" }
  if (isDegenerate(after)) return { ok: false, reason: "degenerate" }
  if (Tokens.ofText(after) >= Tokens.ofText(before)) return { ok: false, reason: "not-denser" }
  const kept = highPriority(before)
  if (kept > 0 && highPriority(after) < kept * (1 - maxHighPriorityLoss)) return { ok: false, reason: "lossy" }
  return { ok: true }
}
