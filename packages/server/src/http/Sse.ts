import type { StreamHub } from "@aide/kernel"

/**
 * Chat streams on the wire: the AI SDK's UI message stream over server-sent events. Each event
 * is `id: N` + `data: <json>` + a blank line (the id is what a client resumes after with
 * `Last-Event-ID`), and `data: [DONE]` follows the last one.
 *
 * Encoded once for all reconnected clients: 2,000 of them on one chat must cost one
 * `JSON.stringify` per event, not 2,000 (bench/fanout.mjs). The hub hands every subscriber the
 * very same event objects, and the very same batch array when it hands them a batch at the same
 * moment (`StreamHub.StreamSink`), so their bytes are memoised on those objects in WeakMaps: each
 * event is encoded once, each batch joined once, and the bytes go with the events (the hub drops
 * a finished stream after its retention). Keyed here rather than stored in the hub, the hub holds
 * no bytes and no HTTP: a shared (Redis) hub implements the same Tag and only has to hand its
 * local subscribers the same objects.
 *
 * The sender's own response (one reader) is encoded without memoising: the memo would keep every
 * event's bytes next to its chunk for the whole retention, 415 instead of 187 B per buffered
 * event (measured; ≈ +5 MiB per 1 MiB answer in small deltas), for streams nobody reconnects to,
 * the common case. A stream with reconnected clients is thus encoded at most twice, whatever
 * their number.
 */

const encoder = new TextEncoder()

/** The frame of one event, `id: N\ndata: <json>\n\n`, encoded now: for a response no one else reads. */
export const encodeEvent = (event: StreamHub.StreamEvent): Uint8Array =>
  encoder.encode(`id: ${event.id}\ndata: ${JSON.stringify(event.chunk)}\n\n`)

/**
 * The frames of events only one response reads, joined: one write, nothing memoised. Built as
 * one string and encoded once: a batch costs one native UTF-8 encoding, not one per event and a
 * copy to join them.
 */
export const encodeEvents = (events: ReadonlyArray<StreamHub.StreamEvent>): Uint8Array => {
  let text = ""
  for (const event of events) text += `id: ${event.id}\ndata: ${JSON.stringify(event.chunk)}\n\n`
  return Buffer.from(text)
}

const sharedEventBytes = new WeakMap<StreamHub.StreamEvent, Uint8Array>()
const sharedBatchBytes = new WeakMap<ReadonlyArray<StreamHub.StreamEvent>, Buffer>()

/** The frame of an event read by several subscribers: encoded on first use, then memoised. */
const encodeShared = (event: StreamHub.StreamEvent): Uint8Array => {
  let bytes = sharedEventBytes.get(event)
  if (bytes === undefined) {
    bytes = encodeEvent(event)
    sharedEventBytes.set(event, bytes)
  }
  return bytes
}

/** Frames as one buffer: one socket write (`writev`) instead of one per frame; a single frame is not copied. */
export const join = (frames: ReadonlyArray<Uint8Array>): Uint8Array =>
  frames.length === 1 ? frames[0]! : Buffer.concat(frames)

/**
 * The frames of a batch of events handed to subscribers, joined, as a Node Buffer (a view,
 * nothing copied): the same Buffer for every subscriber handed that batch, and each event encoded
 * once over every batch it is in (live, replays).
 */
export const encodeBatch = (events: ReadonlyArray<StreamHub.StreamEvent>): Buffer => {
  let bytes = sharedBatchBytes.get(events)
  if (bytes === undefined) {
    const joined = join(events.map(encodeShared))
    bytes = Buffer.from(joined.buffer, joined.byteOffset, joined.byteLength)
    sharedBatchBytes.set(events, bytes)
  }
  return bytes
}

const chunkedFrames = new WeakMap<Uint8Array, Buffer>()

/**
 * `bytes` framed as one chunk of HTTP/1.1 chunked encoding (size line, bytes, CRLF), built once
 * for every subscriber handed the same batch: written to each socket as it is (http/SseSubscribers).
 */
export const chunked = (bytes: Uint8Array): Buffer => {
  let frame = chunkedFrames.get(bytes)
  if (frame === undefined) {
    frame = Buffer.concat([Buffer.from(`${bytes.byteLength.toString(16)}\r\n`), bytes, crlf])
    chunkedFrames.set(bytes, frame)
  }
  return frame
}
const crlf = Buffer.from("\r\n")

/** The terminator the AI SDK's `DefaultChatTransport` expects after the last event. */
export const done: Buffer = Buffer.from("data: [DONE]\n\n")

/** An SSE comment: keeps proxies and clients from timing out an idle stream. */
export const keepAlive: Buffer = Buffer.from(": keep-alive\n\n")

export const contentType = "text/event-stream"

/** The headers of a chat stream response; `x-run-id` on the answer of a send or an approval. */
export const headers = (threadId: string, runId?: string): Record<string, string> => ({
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-thread-id": threadId,
  ...(runId === undefined ? {} : { "x-run-id": runId }),
})
