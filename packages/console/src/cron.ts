import { CronExpressionParser } from "cron-parser"

/**
 * The schedule editor's preview, kept pure (no React, no clock of its own) so that it is unit
 * tested: a cron expression in words, and its next run times in a time zone.
 */

const dayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
const monthNames = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
]

const pad = (n: number) => String(n).padStart(2, "0")
const isNumber = (field: string) => /^\d+$/.test(field)

const listOf = (field: string, names?: ReadonlyArray<string>, offset = 0): string => {
  const name = (value: string) => {
    if (names === undefined) return value
    const index = Number(value) - offset
    return names[index === 7 ? 0 : index] ?? value
  }
  const parts = field.split(",").map((part) => {
    const range = /^(\d+)-(\d+)$/.exec(part)
    return range === null ? name(part) : `${name(range[1]!)} through ${name(range[2]!)}`
  })
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`
}

/** `0 9 * * 1-5` → "At 09:00, Monday through Friday". Unusual expressions fall back to a field-by-field reading. */
export const describeCron = (expression: string): string => {
  const fields = expression.trim().split(/\s+/)
  if (fields.length !== 5 && fields.length !== 6)
    return "Not a cron expression: 5 fields (minute hour day month weekday)"
  const [second, minute, hour, day, month, weekday] = fields.length === 6 ? fields : ["0", ...fields]
  let time: string
  const every = (field: string) => /^\*\/(\d+)$/.exec(field)?.[1]
  if (second === "*") time = "Every second"
  else if (second !== "0") time = every(second!) ? `Every ${every(second!)} seconds` : `At second ${second}`
  else if (minute === "*" && hour === "*") time = "Every minute"
  else if (every(minute!) && hour === "*") time = `Every ${every(minute!)} minutes`
  else if (isNumber(minute!) && hour === "*") time = `At minute ${minute} of every hour`
  else if (isNumber(minute!) && isNumber(hour!)) time = `At ${pad(Number(hour))}:${pad(Number(minute))}`
  else if (isNumber(minute!) && every(hour!)) time = `At minute ${minute}, every ${every(hour!)} hours`
  else if (isNumber(minute!) && /^[\d,-]+$/.test(hour!))
    time = `At ${hour!
      .split(",")
      .map((h) => (isNumber(h) ? `${pad(Number(h))}:${pad(Number(minute))}` : h))
      .join(", ")}`
  else time = `At minute ${minute}, hour ${hour}`
  const parts = [time]
  if (day !== "*" && day !== "?") parts.push(`on day ${listOf(day!)} of the month`)
  if (month !== "*") parts.push(`in ${listOf(month!, monthNames, 1)}`)
  if (weekday !== "*" && weekday !== "?") parts.push(listOf(weekday!, dayNames))
  return parts.join(", ")
}

export type NextRuns =
  | { readonly ok: true; readonly runs: ReadonlyArray<Date> }
  | { readonly ok: false; readonly error: string }

/** The next `count` runs after `from`, the expression read in `timeZone` (DST-correct). */
export const nextRuns = (expression: string, timeZone: string, from: Date, count = 3): NextRuns => {
  try {
    const parsed = CronExpressionParser.parse(expression.trim(), { tz: timeZone, currentDate: from })
    return { ok: true, runs: parsed.take(count).map((date) => date.toDate()) }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) }
  }
}

/** A run time as the owner reads it, in the task's time zone. */
export const formatRun = (date: Date, timeZone: string, locale = "en-GB") =>
  new Intl.DateTimeFormat(locale, {
    timeZone,
    weekday: "short",
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(date)
