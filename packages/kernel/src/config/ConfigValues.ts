import { Schema } from "effect"
import { cronProblem } from "../time/Cron.js"

/** The plain values of the config document: strings, zones, ids, times, counts. */

/** A string of at least one character. */
export const NonEmptyString = Schema.String.pipe(Schema.minLength(1, { message: () => "must be a non-empty string" }))

/**
 * Zone names seen valid. Building an `Intl.DateTimeFormat` costs ~0.1 ms, and the document is
 * validated whole at every patch: 10,000 scheduled tasks would spend a second here each time.
 * `UTC`, the default, every runtime knows (ECMA-402): checking it would page in ~6 MiB of ICU's
 * data from the Node binary at every start (issue 38).
 */
const knownTimeZones = new Set<string>(["UTC"])

const isTimeZone = (value: string) => {
  if (knownTimeZones.has(value)) return true
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value })
    if (knownTimeZones.size < 10_000) knownTimeZones.add(value)
    return true
  } catch {
    return false
  }
}

/** An IANA time zone name that this runtime's `Intl` knows (`UTC`, `Europe/Berlin`…). */
export const TimeZone = Schema.String.pipe(
  Schema.filter((value) => isTimeZone(value) || `unknown time zone ${JSON.stringify(value)} (use an IANA name)`),
).annotations({ identifier: "TimeZone" })

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID string (any version): ids of scheduled tasks and heartbeat checklist items. */
export const Uuid = Schema.String.pipe(
  Schema.pattern(uuidPattern, { message: (issue) => `${JSON.stringify(issue.actual)} is not a UUID` }),
)

/** A cron expression cron-parser accepts: 5 fields, or 6 with seconds first. */
export const CronExpression = Schema.String.pipe(Schema.filter((value) => cronProblem(value) ?? true)).annotations({
  identifier: "CronExpression",
  description: "cron expression: 5 fields (minute hour day month weekday) or 6 (seconds first)",
})

const isoWithZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

/** An ISO 8601 timestamp with its offset (`2026-05-01T09:00:00Z`, `…+02:00`): an instant, never ambiguous. */
export const Timestamp = Schema.String.pipe(
  Schema.filter(
    (value) =>
      (isoWithZone.test(value) && !Number.isNaN(Date.parse(value))) ||
      `invalid timestamp ${JSON.stringify(value)}: use ISO 8601 with an offset, e.g. 2026-05-01T09:00:00Z`,
  ),
).annotations({ identifier: "Timestamp" })

/** An integer from 1. */
export const PositiveInt = Schema.Number.pipe(
  Schema.int({ message: () => "must be a positive integer" }),
  Schema.positive({ message: () => "must be a positive integer" }),
)
