import type { ServerResponse } from "node:http"
import { Readable } from "node:stream"
import { type Chat, StreamHub } from "@aide/kernel"
import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Duration, Effect, Option } from "effect"
import * as Sse from "./Sse.js"

/**
 * Reconnected clients of chat streams (`GET /api/chat/:threadId/stream`), written to without a
 * fiber, queue or Effect Stream each: the hub hands every subscriber the same batch of events,
 * encoded once (`Sse.encodeBatch`), and each gets one push of those bytes into a Node Readable
 * piped into its response. Thousands of them on one stream cost a socket write each per batch,
 * and a few KB each while idle.
 */

/** What the keep-alive timer and the shutdown reach: every open subscriber. */
interface Subscriber {
  heartbeat(): void
  destroy(): void
}

/** One subscriber's response body: the hub pushes into it, Node pipes it into the socket. */
class SseBody extends Readable implements StreamHub.StreamSink, Subscriber {
  /** Set once attached; detaches from the hub when the body is destroyed (client gone). */
  detach: (() => void) | undefined = undefined
  #limit = -1

  constructor(
    private readonly open: Set<Subscriber>,
    private readonly maxLagBytes: number,
    /** Encodes a batch: shared by every subscriber (reconnects), or for this response alone (the sender's). */
    private readonly encode: (events: ReadonlyArray<StreamHub.StreamEvent>) => Uint8Array,
    /** The Node response it is piped into (absent under the Web-standard handler). */
    private readonly response: ServerResponse | undefined,
  ) {
    super()
    open.add(this)
  }

  override _read(): void {}

  /**
   * Piped, a Readable starts flowing on the next tick, and Node runs next ticks only once the
   * microtask queue is empty: after every fiber step the Effect scheduler queued meanwhile (the
   * run reading on, relaying, committing). What was pushed already — an answer's head, with its
   * first delta; a reconnect's replay — is written now instead, with the headers.
   */
  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    const piped = super.pipe(destination, options)
    // Node's own flow loop: stops when the destination asks to pause.
    while (this.readableFlowing === true && this.read() !== null) {}
    return piped
  }

  onEvents(events: ReadonlyArray<StreamHub.StreamEvent>): void {
    if (this.destroyed) return
    const bytes = this.encode(events)
    // The first write is the replay, however long: a reader that cannot keep up with what
    // follows is dropped (it may reconnect with Last-Event-ID) rather than buffered without bound.
    if (this.#limit < 0) this.#limit = bytes.length + this.maxLagBytes
    else if (this.readableLength > this.#limit) return void this.destroy()
    this.push(bytes)
  }

  onEnd(): void {
    if (this.destroyed) return
    this.push(Sse.done)
    this.push(null)
    // Piped, Node would end the response a turn later, once the Readable has ended: the chunked
    // terminator would be a socket write of its own. Ended now, it joins `[DONE]` (and the last
    // events, written this same turn) in one write. Only when everything pushed is written
    // already (not held back by a slow reader); the pipe's own `end` is then a no-op.
    const response = this.response
    if (response !== undefined && this.readableLength === 0 && response.headersSent && !response.writableEnded) {
      this.unpipe(response)
      response.end()
    }
  }

  heartbeat(): void {
    if (!this.destroyed && !this.readableEnded) this.push(Sse.keepAlive)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.detach?.()
    this.detach = undefined
    this.open.delete(this)
    callback(error)
  }
}

/**
 * A plain reconnect's subscriber (http/DirectReconnects): each batch written straight to its
 * connection, with no `Readable` and pipe between them (bench/fanout.mjs, issue 38).
 * The same bound: a reader more than `maxLagBytes` behind (Node's unwritten bytes) is dropped,
 * its connection closed so that it reconnects with Last-Event-ID.
 */
class DirectSink implements StreamHub.StreamSink, Subscriber {
  /** Set once attached; detaches from the hub when the subscriber is destroyed (client gone). */
  detach: (() => void) | undefined = undefined
  #limit = -1
  #gone = false
  /** What the hub handed over (the replay) before the head could be written; then undefined. */
  #pending: Array<Uint8Array> | undefined = []
  #ended = false

  constructor(
    private readonly open: Set<Subscriber>,
    private readonly maxLagBytes: number,
    private readonly response: ServerResponse,
  ) {
    open.add(this)
  }

  /** Writes the head and what came before it (the replay) in one write; `[DONE]` too if it ended. */
  start(headers: Record<string, string>): void {
    const pending = this.#pending ?? []
    this.#pending = undefined
    if (this.response.destroyed) return
    this.response.writeHead(200, headers)
    const chunks = this.#ended ? [...pending, Sse.done] : pending
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    if (this.#ended) this.response.end(body)
    else if (chunks.length > 0) this.response.write(body)
    // The head goes now: what follows may go to the socket directly (`send`).
    else this.response.flushHeaders()
  }

  /**
   * Chunked responses (any HTTP/1.1 client) get the batch's chunk, framed once for every
   * subscriber (`Sse.chunked`), written to the socket: `ServerResponse.write` would frame it per
   * subscriber and cork the socket until the next tick, to write three pieces with `writev`
   * — together a third of the user CPU of each write at 2,000 subscribers (issue 38). The head
   * was written before (`start`), and every write goes through the socket's one queue: in order.
   */
  private send(bytes: Uint8Array): void {
    const socket = this.response.socket
    if (this.response.chunkedEncoding && socket !== null) socket.write(Sse.chunked(bytes))
    else this.response.write(bytes)
  }

  /** Bytes written and not yet taken by the socket. */
  private get unwritten(): number {
    return this.response.writableLength + (this.response.socket?.writableLength ?? 0)
  }

  onEvents(events: ReadonlyArray<StreamHub.StreamEvent>): void {
    if (this.#gone || this.response.destroyed) return
    const bytes = Sse.encodeBatch(events)
    // The first write is the replay, however long (as SseBody).
    if (this.#limit < 0) this.#limit = bytes.length + this.maxLagBytes
    else if (this.unwritten > this.#limit) return void this.destroy()
    if (this.#pending !== undefined) this.#pending.push(bytes)
    else this.send(bytes)
  }

  onEnd(): void {
    if (this.#gone) return
    if (this.#pending !== undefined) this.#ended = true
    else if (!this.response.destroyed && !this.response.writableEnded) this.response.end(Sse.done)
    this.release()
  }

  heartbeat(): void {
    if (this.#pending === undefined && !this.#gone && !this.response.writableEnded) this.send(Sse.keepAlive)
  }

  /** Gone: leaves the hub and closes the connection (a client dropped for lagging reconnects). */
  destroy(): void {
    this.release()
    if (!this.response.destroyed) this.response.destroy()
  }

  /** Leaves the hub and the keep-alives, the response untouched (someone else answers it). */
  release(): void {
    this.#gone = true
    this.detach?.()
    this.detach = undefined
    this.open.delete(this)
  }
}

export interface SseSubscribersOptions {
  /** Interval of keep-alive comments. */
  readonly heartbeat: Duration.DurationInput
  /** How far (bytes) a subscriber may fall behind the live events before it is dropped; default 1 MiB. */
  readonly maxLagBytes?: number
}

export const defaultMaxLagBytes = 1024 * 1024

/**
 * `respond(request, threadId, afterEventId)`: the SSE response of a reconnect, or 204 when there
 * is no stream to resume. One timer sends the keep-alive comments of every subscriber.
 */
export const make = (options: SseSubscribersOptions) =>
  Effect.gen(function* () {
    const hub = yield* StreamHub.StreamHub
    const open = new Set<Subscriber>()
    // The answers of sends and approvals: kept up with keep-alives too, but never cut when the
    // server closes: a graceful shutdown lets their runs finish and their responses end.
    const answers = new Set<Subscriber>()
    const maxLagBytes = options.maxLagBytes ?? defaultMaxLagBytes
    const interval = Duration.toMillis(Duration.decode(options.heartbeat))
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const timer = setInterval(() => {
          for (const body of open) body.heartbeat()
          for (const body of answers) body.heartbeat()
        }, interval)
        timer.unref()
        return timer
      }),
      (timer) =>
        Effect.sync(() => {
          clearInterval(timer)
          for (const body of open) body.destroy()
        }),
    )

    const respond = (
      request: HttpServerRequest.HttpServerRequest,
      threadId: string,
      afterEventId: number | undefined,
    ) =>
      Effect.suspend(() => {
        // Whatever becomes of the request fiber (interrupted before the body is piped, say), the
        // subscriber leaves the hub when its connection closes.
        // (No Node response under the Web-standard handler: there the body's cancel ends it.)
        const response = NodeHttpServerRequest.toServerResponse(request) as ServerResponse | undefined
        const body = new SseBody(open, maxLagBytes, Sse.encodeBatch, response)
        response?.once("close", () => body.destroy())
        return hub.attach(threadId, body, afterEventId).pipe(
          Effect.map(
            Option.match({
              onNone: () => {
                body.destroy()
                return HttpServerResponse.empty({ status: 204 })
              },
              onSome: (detach) => {
                body.detach = detach
                return HttpServerResponse.raw(body, {
                  status: 200,
                  contentType: Sse.contentType,
                  headers: Sse.headers(threadId),
                })
              },
            }),
          ),
          Effect.tapError(() => Effect.sync(() => body.destroy())),
        )
      })

    /**
     * The answer of a send or an approval: the run's events from the first, then `[DONE]`,
     * pushed into the response as the run publishes them (each batch one write). Never dropped
     * for lagging: the answer is bounded (`AIDE_RUN_MAX_ANSWER_BYTES`). A client that goes away
     * only detaches: the run goes on.
     */
    const follow = (request: HttpServerRequest.HttpServerRequest, run: Chat.ChatRun) =>
      Effect.sync(() => {
        // Absent under the Web-standard handler (Server.webHandler): there the body's cancel ends it.
        const response = NodeHttpServerRequest.toServerResponse(request) as ServerResponse | undefined
        const body = new SseBody(answers, Number.POSITIVE_INFINITY, Sse.encodeEvents, response)
        response?.once("close", () => body.destroy())
        body.detach = run.attach(body)
        return HttpServerResponse.raw(body, {
          status: 200,
          contentType: Sse.contentType,
          headers: Sse.headers(run.threadId, run.runId),
        })
      })

    /**
     * `respond` on a bare Node response (http/DirectReconnects): the 200 stream when there is one
     * to resume (true), nothing written otherwise (false) or on `TooManySubscribers`.
     */
    const direct = (response: ServerResponse, threadId: string, afterEventId: number | undefined) =>
      Effect.suspend(() => {
        // Gone while it was authenticated: nothing to answer, and nothing to attach (its
        // `close` has fired already, so a subscriber attached now would never leave).
        if (response.destroyed) return Effect.succeed(true)
        const sink = new DirectSink(open, maxLagBytes, response)
        response.once("close", () => sink.destroy())
        return hub.attach(threadId, sink, afterEventId).pipe(
          Effect.map(
            Option.match({
              onNone: () => {
                sink.release()
                return false
              },
              onSome: (detach) => {
                sink.detach = detach
                sink.start({ "content-type": Sse.contentType, ...Sse.headers(threadId) })
                return true
              },
            }),
          ),
          Effect.tapError(() => Effect.sync(() => sink.release())),
        )
      })

    return { respond, follow, direct } as const
  })
