/** One event of a `text/event-stream` body: its `id:` (if any) and its `data:` lines joined. */
export interface SseEvent {
  readonly id: string | undefined
  readonly data: string
}

/**
 * Parses an SSE body into events, comments (`: keep-alive`) and empty blocks dropped. The one
 * parser of the test suites (server, kernel, clients), so they agree on the wire.
 */
export const parseSse = (text: string): Array<SseEvent> =>
  text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .flatMap((block) => {
      let id: string | undefined
      const data: Array<string> = []
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("id:")) id = line.slice(3).replace(/^ /, "")
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
      }
      return data.length === 0 ? [] : [{ id, data: data.join("\n") }]
    })

/**
 * Reads a whole `text/event-stream` response and returns the `data:` payloads, JSON-parsed
 * where they are JSON (`[DONE]` stays a string). Handy for asserting the wire without an SDK.
 *
 * @example
 * const events = await collectSse(await fetch(`${server.url}/chat/completions`, { method: "POST", body }))
 * expect(events.at(-1)).toBe("[DONE]")
 */
export const collectSse = async (response: Response): Promise<Array<unknown>> =>
  parseSse(await response.text()).map(({ data }) => {
    try {
      return JSON.parse(data) as unknown
    } catch {
      return data
    }
  })
