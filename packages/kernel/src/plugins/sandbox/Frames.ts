/**
 * The wire's framing (docs/plugin-sandbox.md): each message is a 4-byte big-endian length, then
 * that many bytes of UTF-8 JSON, over a pipe of its own (fd 3 of the plugin process). Node's IPC
 * channel parses a message whole before anyone can look at its size; here the length comes first,
 * so an oversize message is refused from its header, before any of its body is kept or parsed.
 * `runtime/wire.mjs` holds the child's copy of these few lines.
 */

export const headerBytes = 4

/** A message as its frame; throws for a value JSON cannot encode. */
export const encode = (message: unknown): Buffer => {
  const text = JSON.stringify(message)
  // One buffer per frame (a flood of refusals is answered frame by frame).
  const bytes = Buffer.byteLength(text, "utf8")
  const frame = Buffer.allocUnsafe(headerBytes + bytes)
  frame.writeUInt32BE(bytes, 0)
  frame.write(text, headerBytes, "utf8")
  return frame
}

export interface FrameReader {
  /** Feeds bytes as they arrive; once `refuse` was called, everything after is ignored. */
  readonly push: (chunk: Buffer) => void
}

/**
 * Cuts a byte stream into frames: `frame` gets each message's text, `refuse` the first reason
 * the stream cannot go on (an empty or oversize frame). At most `maxBytes` of one message are
 * ever held, plus a chunk in flight.
 */
export const reader = (
  maxBytes: number,
  frame: (text: string) => void,
  refuse: (reason: string) => void,
): FrameReader => {
  let header = Buffer.alloc(0)
  let expected = -1
  let parts: Array<Buffer> = []
  let received = 0
  let refused = false

  const push = (chunk: Buffer): void => {
    let rest = chunk
    while (!refused && rest.length > 0) {
      if (expected < 0) {
        if (header.length === 0 && rest.length >= headerBytes) {
          // The common case, a whole header in this chunk: no copy.
          expected = rest.readUInt32BE(0)
          rest = rest.subarray(headerBytes)
        } else {
          const need = headerBytes - header.length
          header = Buffer.concat([header, rest.subarray(0, need)])
          rest = rest.subarray(need)
          if (header.length < headerBytes) return
          expected = header.readUInt32BE(0)
          header = Buffer.alloc(0)
        }
        if (expected === 0 || expected > maxBytes) {
          refused = true
          refuse(
            expected === 0
              ? "sent an empty message"
              : `sent a message of ${expected} bytes (limit ${maxBytes}); refused before reading it`,
          )
          return
        }
        continue
      }
      if (received === 0 && rest.length >= expected) {
        // A whole message in this chunk: decoded in place.
        const text = rest.toString("utf8", 0, expected)
        rest = rest.subarray(expected)
        expected = -1
        frame(text)
        continue
      }
      const take = rest.subarray(0, expected - received)
      rest = rest.subarray(take.length)
      parts.push(take)
      received += take.length
      if (received === expected) {
        const text = Buffer.concat(parts, expected).toString("utf8")
        parts = []
        received = 0
        expected = -1
        frame(text)
      }
    }
  }
  return { push }
}
