import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Exit, Fiber, Layer, Option, Scope, Stream, TestClock, TestServices } from "effect"
import * as StreamHub from "../src/chat/StreamHub.js"

type Hub = StreamHub.StreamHub["Type"]
type StreamEvent = StreamHub.StreamEvent

/** Runs `body` with a fresh in-memory hub (SPEC retention: 60 s), released when the test ends. */
const withHub = <A, E>(body: (hub: Hub) => Effect.Effect<A, E>) =>
  Effect.flatMap(StreamHub.StreamHub, body).pipe(Effect.provide(StreamHub.layerMemory()))

const chunkOf = (event: StreamEvent): unknown => event.chunk
const ids = (events: ReadonlyArray<StreamEvent>) => events.map((event) => event.id)
const delta = (n: number) => ({ type: "text-delta", id: "t", delta: `d${n}` })

/** The thread's stream as it is now: it must exist. */
const streamOf = (hub: Hub, threadId: string, afterEventId?: number) =>
  Effect.map(hub.subscribe(threadId, afterEventId), (stream) => Option.getOrThrow(stream))

const collect = (stream: Stream.Stream<StreamEvent>) =>
  Effect.map(Stream.runCollect(stream), (events) => Chunk.toReadonlyArray(events))

/** Subscribes and collects in the background; join for every event up to the end. */
const follow = (hub: Hub, threadId: string, afterEventId?: number) =>
  Effect.flatMap(streamOf(hub, threadId, afterEventId), (stream) => Effect.fork(collect(stream)))

/** A sink that records what the hub hands it: each batch of events, and the end. */
const recorder = () => {
  const batches: Array<ReadonlyArray<StreamEvent>> = []
  let ended = false
  const sink: StreamHub.StreamSink = {
    onEvents: (events) => void batches.push(events),
    onEnd: () => {
      ended = true
    },
  }
  return {
    sink,
    batches,
    ended: () => ended,
    ids: () => batches.flatMap(ids),
    chunks: () => batches.flatMap((batch) => batch.map(chunkOf)),
  }
}

/** Lets the hub's scheduled deliveries (next turn of the event loop, or a coalescing window) run. */
const delivered = (recorders: ReadonlyArray<ReturnType<typeof recorder>>, lastId: number) =>
  TestServices.provideLive(
    Effect.gen(function* () {
      while (!recorders.every((r) => r.ids().at(-1) === lastId)) yield* Effect.sleep("5 millis")
    }).pipe(Effect.timeout("5 seconds")),
  )

describe("events", () => {
  it.effect("each event is the chunk as published, with an id counting from 1", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish({ type: "start" })
        yield* writer.publish({ type: "text-delta", id: "0", delta: 'Hé "quoted"\n' })
        yield* writer.finish
        expect(yield* collect(yield* streamOf(hub, "t1", 0))).toEqual([
          { id: 1, chunk: { type: "start" } },
          { id: 2, chunk: { type: "text-delta", id: "0", delta: 'Hé "quoted"\n' } },
        ])
      }),
    ),
  )

  it.effect("two subscribers get the very same event objects: a transport encodes each once", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        const first = yield* follow(hub, "t1")
        const second = yield* follow(hub, "t1")
        yield* writer.publish(delta(2))
        yield* writer.publish(delta(3))
        yield* writer.finish
        const a = yield* Fiber.join(first)
        const b = yield* Fiber.join(second)
        expect(ids(a)).toEqual([1, 2, 3])
        // Not equal copies: the same objects, which a transport keys its encoding on.
        expect(b.every((event, index) => event === a[index])).toBe(true)
      }),
    ),
  )
})

describe("subscribe", () => {
  it.effect("replays what was published, then follows live events in order until finish", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        yield* writer.publish(delta(2))
        const subscriber = yield* follow(hub, "t1")
        yield* writer.publish(delta(3))
        yield* writer.publish(delta(4))
        yield* writer.finish
        const events = yield* Fiber.join(subscriber)
        expect(ids(events)).toEqual([1, 2, 3, 4])
        expect(events.map(chunkOf)).toEqual([delta(1), delta(2), delta(3), delta(4)])
      }),
    ),
  )

  it.effect("from afterEventId: only the events after it, live ones included", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        for (let n = 1; n <= 3; n++) yield* writer.publish(delta(n))
        const fromStart = yield* follow(hub, "t1")
        const afterTwo = yield* follow(hub, "t1", 2)
        const afterAll = yield* follow(hub, "t1", 3)
        yield* writer.publish(delta(4))
        yield* writer.finish
        expect(ids(yield* Fiber.join(fromStart))).toEqual([1, 2, 3, 4])
        expect(ids(yield* Fiber.join(afterTwo))).toEqual([3, 4])
        expect(ids(yield* Fiber.join(afterAll))).toEqual([4])
      }),
    ),
  )

  it.effect("events published while a subscriber is still reading its replay come once each, in order", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        for (let n = 1; n <= 4; n++) yield* writer.publish(delta(n))
        const stream = yield* streamOf(hub, "t1", 1)
        // The subscriber has read event 2 of its replay (3 and 4 still pending) when 5 and 6 arrive.
        const events = yield* collect(
          Stream.tap(stream, (event) =>
            event.id === 2
              ? Effect.zipRight(writer.publish(delta(5)), writer.publish(delta(6)))
              : event.id === 6
                ? writer.finish
                : Effect.void,
          ),
        )
        expect(ids(events)).toEqual([2, 3, 4, 5, 6])
        expect(events.map(chunkOf)).toEqual([2, 3, 4, 5, 6].map(delta))
      }),
    ),
  )

  it.effect("a long stream is replayed whole", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        for (let n = 1; n <= 500; n++) yield* writer.publish(delta(n))
        const subscriber = yield* follow(hub, "t1")
        yield* writer.publish(delta(501))
        yield* writer.finish
        expect(ids(yield* Fiber.join(subscriber))).toEqual(Array.from({ length: 501 }, (_, index) => index + 1))
      }),
    ),
  )

  it.effect("is None for a thread that never streamed", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        expect(Option.isNone(yield* hub.subscribe("never"))).toBe(true)
      }),
    ),
  )

  it.effect("a subscriber that goes away stops receiving; the others continue", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        const leaving = yield* Effect.fork(Stream.runDrain(yield* streamOf(hub, "t1")))
        const staying = yield* follow(hub, "t1")
        // Taking one event and stopping closes that subscriber's scope while the stream runs.
        const firstOnly = yield* collect(Stream.take(yield* streamOf(hub, "t1"), 1))
        yield* Fiber.interrupt(leaving)
        yield* writer.publish(delta(2))
        yield* writer.publish(delta(3))
        yield* writer.finish
        expect(ids(firstOnly)).toEqual([1])
        expect(Exit.isInterrupted(yield* Fiber.await(leaving))).toBe(true)
        expect(ids(yield* Fiber.join(staying))).toEqual([1, 2, 3])
      }),
    ),
  )
})

describe("open", () => {
  it.effect("fails with StreamActive while the thread's stream runs", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        yield* hub.open("t1")
        expect(yield* Effect.flip(hub.open("t1"))).toMatchObject({ _tag: "StreamActive", threadId: "t1" })
        // Other threads are independent.
        yield* hub.open("t2")
      }),
    ),
  )

  it.effect("succeeds once it finished: the new run replaces the old buffer", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const first = yield* hub.open("t1")
        yield* first.publish({ run: 1, n: 1 })
        yield* first.publish({ run: 1, n: 2 })
        yield* first.finish
        const second = yield* hub.open("t1")
        yield* second.publish({ run: 2, n: 1 })
        yield* second.finish
        const events = yield* collect(yield* streamOf(hub, "t1", 0))
        expect(ids(events)).toEqual([1])
        expect(events.map(chunkOf)).toEqual([{ run: 2, n: 1 }])
      }),
    ),
  )

  it.effect("the old run's retention does not drop the new run", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const first = yield* hub.open("t1")
        yield* first.finish
        yield* TestClock.adjust("30 seconds")
        const second = yield* hub.open("t1")
        yield* second.publish(delta(1))
        yield* TestClock.adjust("30 seconds")
        expect(yield* hub.isActive("t1")).toBe(true)
        yield* second.finish
        yield* TestClock.adjust("59 seconds")
        expect(Option.isSome(yield* hub.subscribe("t1", 0))).toBe(true)
        yield* TestClock.adjust("1 second")
        expect(Option.isNone(yield* hub.subscribe("t1", 0))).toBe(true)
      }),
    ),
  )

  it.effect("publish and finish after finish change nothing", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        yield* writer.finish
        yield* writer.publish(delta(2))
        yield* writer.finish
        expect(ids(yield* collect(yield* streamOf(hub, "t1", 0)))).toEqual([1])
      }),
    ),
  )
})

describe("finish", () => {
  it.effect("completes every subscriber", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        const subscribers = yield* Effect.all([follow(hub, "t1"), follow(hub, "t1")])
        yield* writer.publish(delta(1))
        yield* writer.finish
        for (const subscriber of subscribers) expect(ids(yield* Fiber.join(subscriber))).toEqual([1])
      }),
    ),
  )

  it.effect("a finished stream is no stream to resume: None without afterEventId, at once", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        yield* writer.finish
        expect(Option.isNone(yield* hub.subscribe("t1"))).toBe(true)
        expect(Option.isNone(yield* hub.attach("t1", recorder().sink))).toBe(true)
      }),
    ),
  )

  it.effect("its rest stays available after afterEventId for 60 seconds, then is gone", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        yield* writer.publish(delta(2))
        yield* writer.finish
        yield* TestClock.adjust("59 seconds")
        expect(ids(yield* collect(yield* streamOf(hub, "t1", 0)))).toEqual([1, 2])
        expect(ids(yield* collect(yield* streamOf(hub, "t1", 1)))).toEqual([2])
        expect(ids(yield* collect(yield* streamOf(hub, "t1", 2)))).toEqual([])
        yield* TestClock.adjust("1 second")
        expect(Option.isNone(yield* hub.subscribe("t1", 0))).toBe(true)
      }),
    ),
  )

  it.effect("an afterEventId past its last event (an earlier run's) is no resume of it: None", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        yield* writer.finish
        expect(Option.isNone(yield* hub.subscribe("t1", 7))).toBe(true)
      }),
    ),
  )

  it.effect("while it runs, the same afterEventId replays from the start", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        const subscriber = yield* follow(hub, "t1", 7)
        yield* writer.publish(delta(2))
        yield* writer.finish
        expect(ids(yield* Fiber.join(subscriber))).toEqual([1, 2])
      }),
    ),
  )

  it.effect("retention is configurable", () =>
    Effect.gen(function* () {
      const hub = yield* StreamHub.StreamHub
      const writer = yield* hub.open("t1")
      yield* writer.finish
      yield* TestClock.adjust("4 seconds")
      expect(Option.isSome(yield* hub.subscribe("t1", 0))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(Option.isNone(yield* hub.subscribe("t1", 0))).toBe(true)
    }).pipe(Effect.provide(StreamHub.layerMemory({ retention: "5 seconds" }))),
  )

  it.effect("closing the hub does not wait for the retention, even when finish ran in a finalizer", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const hub = Context.get(yield* Layer.buildWithScope(StreamHub.layerMemory(), scope), StreamHub.StreamHub)
      const writer = yield* hub.open("t1")
      yield* writer.publish(delta(1))
      // As a chat run does: `finish` in `Effect.ensuring`, which runs uninterruptibly.
      yield* Effect.void.pipe(Effect.ensuring(writer.finish))
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      // The test clock never moves: a close that waited for the 60 s timer would never end.
      yield* TestServices.provideLive(Fiber.join(closing).pipe(Effect.timeout("2 seconds")))
    }),
  )
})

describe("activeThreadIds and isActive", () => {
  it.effect("list the threads whose stream runs now, not finished ones", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        expect(yield* hub.activeThreadIds).toEqual([])
        const one = yield* hub.open("t1")
        yield* hub.open("t2")
        expect([...(yield* hub.activeThreadIds)].sort()).toEqual(["t1", "t2"])
        yield* one.finish
        expect(yield* hub.activeThreadIds).toEqual(["t2"])
        expect(yield* hub.isActive("t1")).toBe(false)
        expect(yield* hub.isActive("t2")).toBe(true)
        expect(yield* hub.isActive("never")).toBe(false)
        yield* TestClock.adjust("60 seconds")
        expect(yield* hub.isActive("t1")).toBe(false)
        expect(yield* hub.activeThreadIds).toEqual(["t2"])
      }),
    ),
  )
})

describe("attach (transports' subscribers)", () => {
  it.effect("hands the replay at once, then live events; every sink gets the very same batches", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        yield* writer.publish(delta(1))
        const [a, b] = [recorder(), recorder()]
        yield* hub.attach("t1", a.sink)
        yield* hub.attach("t1", b.sink)
        // Synchronous: the replay is there before `attach` returns.
        expect(a.ids()).toEqual([1])
        yield* writer.publish(delta(2))
        yield* writer.publish(delta(3))
        yield* delivered([a, b], 3)
        yield* writer.finish
        expect(a.ids()).toEqual([1, 2, 3])
        expect(a.ended() && b.ended()).toBe(true)
        expect(b.chunks()).toEqual([1, 2, 3].map(delta))
        // Not equal copies: the same arrays, which a transport encodes (and joins) once for all.
        expect(b.batches.every((batch, index) => batch === a.batches[index])).toBe(true)
      }),
    ),
  )

  it.effect("after afterEventId: only the rest", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        for (let n = 1; n <= 3; n++) yield* writer.publish(delta(n))
        const rest = recorder()
        yield* hub.attach("t1", rest.sink, 2)
        yield* writer.finish
        expect(rest.ids()).toEqual([3])
      }),
    ),
  )

  it.effect(
    "caps subscribers per stream (scope stream) and over the hub (scope hub); the run's own Stream is not counted",
    () =>
      Effect.gen(function* () {
        const hub = yield* StreamHub.StreamHub
        yield* hub.open("t1")
        yield* hub.open("t2")
        // The run's own response: never refused, never counted.
        yield* Effect.fork(collect(yield* streamOf(hub, "t1")))
        yield* hub.attach("t1", recorder().sink)
        yield* hub.attach("t1", recorder().sink)
        expect(yield* Effect.flip(hub.attach("t1", recorder().sink))).toMatchObject({
          _tag: "TooManySubscribers",
          threadId: "t1",
          scope: "stream",
          limit: 2,
        })
        yield* hub.attach("t2", recorder().sink)
        expect(yield* Effect.flip(hub.attach("t2", recorder().sink))).toMatchObject({
          _tag: "TooManySubscribers",
          threadId: "t2",
          scope: "hub",
          limit: 3,
        })
        expect(yield* hub.subscriberCount()).toBe(3)
        expect(yield* hub.subscriberCount("t1")).toBe(2)
      }).pipe(Effect.provide(StreamHub.layerMemory({ maxSubscribersPerStream: 2, maxSubscribers: 3 }))),
  )

  it.effect("subscribers that leave, and streams that finish, give their places back: the count returns to 0", () =>
    Effect.gen(function* () {
      const hub = yield* StreamHub.StreamHub
      const one = yield* hub.open("t1")
      const two = yield* hub.open("t2")
      const leaving = Option.getOrThrow(yield* hub.attach("t1", recorder().sink))
      yield* hub.attach("t2", recorder().sink)
      expect(yield* Effect.flip(hub.attach("t1", recorder().sink))).toMatchObject({ scope: "hub" })
      leaving()
      leaving()
      expect(yield* hub.subscriberCount()).toBe(1)
      yield* hub.attach("t1", recorder().sink)
      yield* one.finish
      yield* two.finish
      expect(yield* hub.subscriberCount()).toBe(0)
      expect(yield* hub.subscriberCount("t1")).toBe(0)
    }).pipe(Effect.provide(StreamHub.layerMemory({ maxSubscribers: 2 }))),
  )

  it.effect("past the write budget, events are coalesced into fewer batches: none lost, in order, shared", () =>
    Effect.gen(function* () {
      const hub = yield* StreamHub.StreamHub
      const writer = yield* hub.open("t1")
      const sinks = [recorder(), recorder()]
      for (const r of sinks) yield* hub.attach("t1", r.sink)
      for (let n = 1; n <= 10; n++) {
        yield* writer.publish(delta(n))
        // Each event in its own turn of the event loop: without coalescing, one write each.
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      }
      yield* delivered(sinks, 10)
      const [a, b] = sinks as [ReturnType<typeof recorder>, ReturnType<typeof recorder>]
      expect(a.ids()).toEqual(Array.from({ length: 10 }, (_, index) => index + 1))
      expect(a.batches.length).toBeLessThan(10)
      expect(a.chunks()).toEqual(Array.from({ length: 10 }, (_, index) => delta(index + 1)))
      expect(b.batches.every((batch, index) => batch === a.batches[index])).toBe(true)
      yield* writer.finish
    }).pipe(Effect.provide(StreamHub.layerMemory({ writeBudget: 1 }))),
  )

  it.effect("a sink that detaches while it is handed a batch does not stop the others", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t1")
        let detach: () => void = () => {}
        const leaving: StreamHub.StreamSink = {
          onEvents: (events) => events.at(-1)!.id >= 1 && detach(),
          onEnd: () => {},
        }
        detach = Option.getOrThrow(yield* hub.attach("t1", leaving))
        const staying = recorder()
        yield* hub.attach("t1", staying.sink)
        yield* writer.publish(delta(1))
        yield* writer.finish
        expect(staying.ids()).toEqual([1])
        expect(staying.ended()).toBe(true)
        expect(yield* hub.subscriberCount()).toBe(0)
      }),
    ),
  )
})

describe("follow (the run's own response)", () => {
  it.effect("publishAll hands the batch to a follower at once, as one batch: nothing waits for the event loop", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const writer = yield* hub.open("t-follow")
        yield* writer.publish({ type: "start" })
        const following = Option.getOrThrow(yield* hub.follow("t-follow"))
        const follower = recorder()
        following.attach(follower.sink)
        // The replay so far, synchronously.
        expect(follower.ids()).toEqual([1])
        yield* writer.publishAll([delta(1), delta(2), delta(3)])
        // Delivered within publishAll (a run busy with its commit next would otherwise hold it).
        expect(follower.batches.map(ids)).toEqual([[1], [2, 3, 4]])
        yield* writer.finish
        expect(follower.ended()).toBe(true)
      }),
    ),
  )

  it.effect("follows the run it was made for, not a later run of the thread", () =>
    withHub((hub) =>
      Effect.gen(function* () {
        const first = yield* hub.open("t-runs")
        const following = Option.getOrThrow(yield* hub.follow("t-runs"))
        yield* first.publishAll([delta(1)])
        yield* first.finish
        const second = yield* hub.open("t-runs")
        yield* second.publishAll([delta(2)])
        const follower = recorder()
        following.attach(follower.sink)
        expect(follower.chunks()).toEqual([delta(1)])
        expect(follower.ended()).toBe(true)
      }),
    ),
  )

  it.effect("none for a thread with no running stream", () =>
    withHub((hub) => Effect.map(hub.follow("t-none"), (following) => expect(Option.isNone(following)).toBe(true))),
  )
})
