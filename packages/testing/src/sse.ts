/**
 * Reads a whole `text/event-stream` response and returns the `data:` payloads, JSON-parsed
 * where they are JSON (`[DONE]` stays a string). Handy for asserting the wire without an SDK.
 *
 * @example
 * const events = await collectSse(await fetch(`${server.url}/chat/completions`, { method: "POST", body }))
 * expect(events.at(-1)).toBe("[DONE]")
 */
export const collectSse = async (response: Response): Promise<Array<unknown>> => {
  const text = await response.text()
  const events: Array<unknown> = []
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n")
    if (data === "") continue
    try {
      events.push(JSON.parse(data))
    } catch {
      events.push(data)
    }
  }
  return events
}
