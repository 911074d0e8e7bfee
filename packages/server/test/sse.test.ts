import { pipeline, type Readable, Writable } from "node:stream"
import { type Chat, StreamHub } from "@aide/kernel"
import { HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import * as Sse from "../src/http/Sse.js"
import * as SseSubscribers from "../src/http/SseSubscribers.js"

/** Issue 10, item 3: the hub holds chunks; the server frames them, once however many clients read them. */

const decoder = new TextDecoder()
const text = (bytes: Uint8Array) => decoder.decode(bytes)
const delta = (n: number) => ({ type: "text-delta", id: "t", delta: `d${n}` })

/** The batches a hub hands two attached sinks of one stream: the events published, then finished. */
const batchesOfTwoSinks = (chunks: ReadonlyArray<unknown>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const hub = yield* StreamHub.makeMemory()
        const writer = yield* hub.open("t1")
        yield* writer.publish(chunks[0])
        const sinks = [0, 1].map(() => {
          const batches: Array<ReadonlyArray<StreamHub.StreamEvent>> = []
          const sink: StreamHub.StreamSink = { onEvents: (events) => void batches.push(events), onEnd: () => {} }
          return { batches, sink }
        })
        for (const { sink } of sinks) Option.getOrThrow(yield* hub.attach("t1", sink))
        for (const chunk of chunks.slice(1)) yield* writer.publish(chunk)
        yield* writer.finish
        return sinks.map(({ batches }) => batches)
      }),
    ),
  )

afterEach(() => {
  vi.restoreAllMocks()
})

describe("SSE framing of chat streams", () => {
  it("an event is `id: N`, `data: <json>` and a blank line; the stream ends with `data: [DONE]`", () => {
    expect(text(Sse.encodeEvent({ id: 1, chunk: { type: "start" } }))).toBe('id: 1\ndata: {"type":"start"}\n\n')
    expect(text(Sse.encodeEvent({ id: 2, chunk: { type: "text-delta", id: "0", delta: 'Hé "quoted"\n\u2028' } }))).toBe(
      'id: 2\ndata: {"type":"text-delta","id":"0","delta":"Hé \\"quoted\\"\\n\u2028"}\n\n',
    )
    expect(text(Sse.done)).toBe("data: [DONE]\n\n")
    expect(text(Sse.keepAlive)).toBe(": keep-alive\n\n")
  })

  it("a batch is its events' frames joined, in order", () => {
    const events = [1, 2, 3].map((id) => ({ id, chunk: delta(id) }))
    expect(text(Sse.encodeBatch(events))).toBe(events.map((event) => text(Sse.encodeEvent(event))).join(""))
    expect(text(Sse.encodeBatch(events.slice(0, 1)))).toBe(text(Sse.encodeEvent(events[0]!)))
  })

  it("for subscribers, each event is encoded once and each batch joined once, however many they are", async () => {
    const [a, b] = await batchesOfTwoSinks([1, 2, 3].map(delta))
    expect(a!.length).toBeGreaterThan(0)
    const expected = [1, 2, 3].map((n) => `id: ${n}\ndata: ${JSON.stringify(delta(n))}\n\n`).join("")
    const stringify = vi.spyOn(JSON, "stringify")
    const encodedA = a!.map(Sse.encodeBatch)
    const encodedB = b!.map(Sse.encodeBatch)
    // The very same Buffers for both subscribers, and one JSON.stringify per event.
    expect(encodedB.every((bytes, index) => bytes === encodedA[index])).toBe(true)
    expect(stringify).toHaveBeenCalledTimes(3)
    // An event met again in another batch (a later replay) is not encoded again.
    const replay = a!.flat()
    expect(text(Sse.encodeBatch(replay))).toBe(expected)
    expect(stringify).toHaveBeenCalledTimes(3)
    expect(text(Buffer.concat(encodedA))).toBe(expected)
  })
})

/** A Writable that records what it is given, as it is given it. */
const recorder = () => {
  const written: Array<string> = []
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      written.push(String(chunk))
      callback()
    },
  })
  return { written, sink, text: () => written.join("") }
}

/** The body of a send's answer whose head (`start`, the first delta) the run relayed, in `batches`, before the response was made. */
const answerBody = (batches: ReadonlyArray<ReadonlyArray<StreamHub.StreamEvent>>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const subscribers = yield* SseSubscribers.make({ heartbeat: "1 minute" })
        let sink: StreamHub.StreamSink | undefined
        const run: Chat.ChatRun = {
          threadId: "t1",
          runId: "r1",
          events: Stream.empty,
          attach: (attached) => {
            sink = attached
            for (const batch of batches) attached.onEvents(batch)
            return () => {}
          },
        }
        const response = yield* subscribers.follow(HttpServerRequest.fromWeb(new Request("http://aide/api/chat")), run)
        const body = (response.body as HttpServerResponse.HttpServerResponse["body"] & { readonly body: Readable }).body
        return { body, sink: sink! }
      }).pipe(Effect.provide(StreamHub.layerMemory())),
    ),
  )

describe("SSE responses", () => {
  const head = [
    { id: 1, chunk: { type: "start" } },
    { id: 2, chunk: delta(1) },
  ]

  it("an answer's head is written as the body is piped into the response, not a tick later", async () => {
    const { body, sink } = await answerBody([head])
    const socket = recorder()
    // As @effect/platform-node writes a raw body: `pipeline(body, response)`.
    const ended = new Promise<void>((resolve, reject) => {
      pipeline(body, socket.sink, (error) => (error ? reject(error) : resolve()))
    })
    // Synchronously: behind the next tick it would wait for every fiber step queued meanwhile.
    expect(socket.text()).toBe(head.map((event) => text(Sse.encodeEvent(event))).join(""))

    // What follows flows as before, and the stream ends with [DONE].
    sink.onEvents([{ id: 3, chunk: delta(2) }])
    sink.onEnd()
    await ended
    expect(socket.text()).toBe(
      `${[...head, { id: 3, chunk: delta(2) }].map((event) => text(Sse.encodeEvent(event))).join("")}data: [DONE]\n\n`,
    )
  })

  it("a destination that asks to wait is not written past its limit at once", async () => {
    const { body } = await answerBody([head.slice(0, 1), head.slice(1)])
    const written: Array<string> = []
    // highWaterMark 1 byte: full after the first batch, so the pipe pauses the body.
    const slow = new Writable({
      highWaterMark: 1,
      write(chunk, _encoding, callback) {
        written.push(String(chunk))
        setImmediate(callback)
      },
    })
    body.pipe(slow)
    // The first batch went; the second waits in the body (not in the destination's buffer).
    expect(written).toHaveLength(1)
    expect(body.readableLength).toBe(Sse.encodeEvent(head[1]!).byteLength)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(written.join("")).toBe(head.map((event) => text(Sse.encodeEvent(event))).join(""))
  })
})
