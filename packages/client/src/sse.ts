/** One SSE event: its `id:` (if any) and its `data:` lines joined. */
export interface SseEvent {
  readonly id: string | undefined
  readonly data: string
}

/** Splits a `text/event-stream` body into events as bytes arrive; comments are dropped. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  try {
    while (true) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let end = buffer.search(/\r?\n\r?\n/)
      while (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "")
        const event = parseBlock(block)
        if (event !== undefined) yield event
        end = buffer.search(/\r?\n\r?\n/)
      }
    }
    const last = parseBlock(buffer)
    if (last !== undefined) yield last
  } finally {
    reader.cancel().catch(() => {})
  }
}

const parseBlock = (block: string): SseEvent | undefined => {
  let id: string | undefined
  const data: Array<string> = []
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith("id:")) id = line.slice(3).replace(/^ /, "")
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
  }
  return data.length === 0 ? undefined : { id, data: data.join("\n") }
}
