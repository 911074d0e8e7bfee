import { CronExpressionParser } from "cron-parser"

/**
 * Cron arithmetic (the scheduler fires by it, the config validates with it), in a time zone. cron-parser 5 is DST-correct: a local time
 * that does not exist (02:30 on a spring-forward night) fires at the next valid instant, and an
 * ambiguous one (autumn) fires once. 5 fields (minute first) or 6 (second first).
 */

/**
 * Verdicts of `cronProblem` by expression: parsing costs ~0.1 ms, and the whole config document
 * (every task's cron) is validated at each patch. Bounded: cleared when it grows past the limit.
 */
const cronVerdicts = new Map<string, string | undefined>()
const maxCronVerdicts = 20_000

/** Why `expression` is not a cron expression we accept, or undefined when it is. */
export const cronProblem = (expression: string): string | undefined => {
  if (cronVerdicts.has(expression)) return cronVerdicts.get(expression)
  const verdict = parseProblem(expression)
  if (cronVerdicts.size >= maxCronVerdicts) cronVerdicts.clear()
  cronVerdicts.set(expression, verdict)
  return verdict
}

const parseProblem = (expression: string): string | undefined => {
  const fields = expression.trim().split(/\s+/)
  if (expression.trim() === "" || (!expression.trim().startsWith("@") && fields.length !== 5 && fields.length !== 6)) {
    return `invalid cron expression ${JSON.stringify(expression)}: expected 5 fields (minute hour day month weekday) or 6 (with seconds first)`
  }
  try {
    CronExpressionParser.parse(expression, { tz: "UTC" }).next()
    return undefined
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return `invalid cron expression ${JSON.stringify(expression)}: ${reason}`
  }
}

/** The first occurrence strictly after `afterMillis`; undefined if there is none. */
export const nextAfter = (expression: string, timeZone: string, afterMillis: number): number | undefined => {
  try {
    return CronExpressionParser.parse(expression, { tz: timeZone, currentDate: new Date(afterMillis) })
      .next()
      .getTime()
  } catch {
    return undefined
  }
}

/**
 * The latest occurrence in (`afterMillis`, `atMillis`], as `nextAfter` counts them (a time
 * skipped by DST fires at the next valid instant, and `prev` alone misses that one): found by
 * stepping forward from `prev`'s answer, which is never later. Undefined if there is none.
 */
export const latestBetween = (
  expression: string,
  timeZone: string,
  afterMillis: number,
  atMillis: number,
): number | undefined => {
  const hint = latestAtOrBefore(expression, timeZone, atMillis)
  let start = hint !== undefined && hint - 1 > afterMillis ? hint - 1 : afterMillis
  let latest: number | undefined
  for (let n = 0; n < 10_000; n++) {
    const next = nextAfter(expression, timeZone, start)
    if (next === undefined || next > atMillis) break
    latest = next
    start = next
  }
  return latest
}

/** The latest occurrence at or before `atMillis` by cron-parser's `prev`; undefined if there is none. */
export const latestAtOrBefore = (expression: string, timeZone: string, atMillis: number): number | undefined => {
  try {
    return CronExpressionParser.parse(expression, { tz: timeZone, currentDate: new Date(atMillis + 1) })
      .prev()
      .getTime()
  } catch {
    return undefined
  }
}

/** One formatter per zone: building one costs ~0.1 ms. */
const clockFormats = new Map<string, Intl.DateTimeFormat>()

/** Minutes since local midnight of `millis` in `timeZone`. */
const localMinuteOfDay = (millis: number, timeZone: string): number => {
  let format = clockFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
    clockFormats.set(timeZone, format)
  }
  const parts = format.formatToParts(new Date(millis))
  const hour = Number(parts.find((part) => part.type === "hour")?.value ?? 0)
  const minute = Number(parts.find((part) => part.type === "minute")?.value ?? 0)
  return hour * 60 + minute
}

/** "HH:mm" → minutes since midnight. */
const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/**
 * Whether `millis` falls in the local window [start, end) of `timeZone`. A window whose end is
 * before its start crosses midnight (22:00–06:00); start equal to end means all day.
 */
export const withinHours = (
  window: { readonly start: string; readonly end: string },
  millis: number,
  timeZone: string,
): boolean => {
  const now = localMinuteOfDay(millis, timeZone)
  const start = minutesOf(window.start)
  const end = minutesOf(window.end)
  if (start === end) return true
  return start < end ? now >= start && now < end : now >= start || now < end
}
