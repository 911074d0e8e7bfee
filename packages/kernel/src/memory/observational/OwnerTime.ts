/** Dates as the owner reads them: their time zone, `YYYY-MM-DD` and a 24-hour `HH:mm`. */

const formats = new Map<string, { day: Intl.DateTimeFormat; time: Intl.DateTimeFormat }>()

const formatsOf = (timeZone: string) => {
  let found = formats.get(timeZone)
  if (found === undefined) {
    found = {
      day: new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }),
      time: new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }),
    }
    formats.set(timeZone, found)
  }
  return found
}

/** `2026-11-24` */
export const dayOf = (date: Date, timeZone: string) => formatsOf(timeZone).day.format(date)

/** `14:05` */
export const timeOf = (date: Date, timeZone: string) => formatsOf(timeZone).time.format(date)
