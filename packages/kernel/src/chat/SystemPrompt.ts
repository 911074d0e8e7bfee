/** The system prompt of a run: the owner's personality, the assistant's name, the time now. */

/** Building an `Intl.DateTimeFormat` costs ~0.1 ms (more at first use of a zone): one per zone. */
const timeFormats = new Map<string, Intl.DateTimeFormat>()
export const timeFormat = (timeZone: string) => {
  let format = timeFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "long", timeZone })
    timeFormats.set(timeZone, format)
  }
  return format
}

export const systemPrompt = (
  config: {
    readonly personality: { readonly systemPrompt: string }
    readonly identity: { readonly name: string }
    readonly timezone: string
  },
  now: Date,
) => {
  const time = timeFormat(config.timezone).format(now)
  return [
    config.personality.systemPrompt,
    `Your name is ${config.identity.name}.`,
    `The current time is ${time} (time zone ${config.timezone}).`,
  ]
    .filter((line) => line.trim() !== "")
    .join("\n\n")
}
