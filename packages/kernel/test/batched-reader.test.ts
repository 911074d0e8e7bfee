import { describe, expect, it } from "vitest"
import { batchedReads } from "../src/chat/internal/BatchedReader.js"

/** A stream behind a transform, as the AI SDK's UI message stream is: reads resolve in microtasks. */
const transformed = <A>(source: ReadableStream<A>) => source.pipeThrough(new TransformStream<A, A>()).getReader()

const buffered = <A>(chunks: ReadonlyArray<A>) =>
  new ReadableStream<A>({
    start: (controller) => {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })

/** Every batch until the end. */
const drain = async <A>(next: () => Promise<ReadonlyArray<A> | undefined>) => {
  const batches: Array<ReadonlyArray<A>> = []
  for (let batch = await next(); batch !== undefined; batch = await next()) batches.push(batch)
  return batches
}

describe("batched reads of the model's stream", () => {
  it("chunks already in hand come as one batch, at most `max`, in order, none lost", async () => {
    const chunks = Array.from({ length: 10 }, (_, index) => index)
    const batches = await drain(batchedReads(transformed(buffered(chunks)), 4))
    expect(batches.flat()).toEqual(chunks)
    expect(batches.map((batch) => batch.length)).toEqual([4, 4, 2])
  })

  it("what is in hand comes up to the first chunk `until` accepts; the rest comes with the next read", async () => {
    const next = batchedReads(transformed(buffered(["start", "text-start", "delta 1", "delta 2", "finish"])))
    expect(await next.available((chunk) => chunk.startsWith("delta"))).toEqual(["start", "text-start", "delta 1"])
    expect(await next()).toEqual(["delta 2", "finish"])
    expect(await next()).toBeUndefined()
  })

  it("a chunk that arrives alone is handed over alone, without waiting for more", async () => {
    let controller!: ReadableStreamDefaultController<string>
    const source = new ReadableStream<string>({
      start: (c) => {
        controller = c
      },
    })
    const next = batchedReads(transformed(source))
    const first = next()
    controller.enqueue("a")
    expect(await first).toEqual(["a"])
    const second = next()
    setTimeout(() => {
      controller.enqueue("b")
      controller.enqueue("c")
      controller.close()
    }, 5)
    expect(await second).toEqual(["b", "c"])
    expect(await next()).toBeUndefined()
  })

  it("a stream that breaks after some chunks hands them over first, then fails", async () => {
    let pulls = 0
    const source = new ReadableStream<number>({
      pull: (controller) => {
        pulls++
        if (pulls <= 3) controller.enqueue(pulls)
        else controller.error(new Error("connection reset"))
      },
    })
    const next = batchedReads(transformed(source))
    const received: Array<number> = []
    const failure = await (async () => {
      try {
        for (let batch = await next(); batch !== undefined; batch = await next()) received.push(...batch)
      } catch (error) {
        return error
      }
    })()
    expect(received).toEqual([1, 2, 3])
    expect(failure).toMatchObject({ message: "connection reset" })
  })
})
