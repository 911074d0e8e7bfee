/** Building an `Intl.DateTimeFormat` costs ~0.1 ms (more at first use of a zone): one per zone. */
const timeFormats = new Map<string, Intl.DateTimeFormat>()

/** The long, human form of a time in a zone ("Sunday 29 November 2026 at 08:00:00 UTC"). Throws on an unknown zone. */
export const timeFormat = (timeZone: string) => {
  let format = timeFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "long", timeZone })
    timeFormats.set(timeZone, format)
  }
  return format
}
