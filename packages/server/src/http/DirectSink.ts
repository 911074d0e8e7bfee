import type { ServerResponse } from "node:http"
import type { StreamHub } from "@aide/kernel"
import * as Sse from "./Sse.js"

/** What the keep-alive timer and the shutdown reach: every open subscriber. */
export interface Subscriber {
  /** A tick of the keep-alive clock (`ticksPerBeat` a keep-alive interval). */
  heartbeat(tick: number): void
  destroy(): void
}

/**
 * Keep-alives go to idle streams only (docs/chat.md): a subscriber gets one when nothing was
 * written to it for a keep-alive interval. The timer ticks this many times an interval and each
 * subscriber notes the tick of its last write (a number, no clock read per write): silence never
 * lasts longer than the interval, and a stream with events gets no comments among them — 2,000
 * subscribers of a running chat were sent 2,000 needless writes every interval (issue 38).
 */
export const ticksPerBeat = 3

/**
 * A plain reconnect's subscriber (http/DirectReconnects): each batch written straight to its
 * connection, with no `Readable` and pipe between them (bench/fanout.mjs, issue 38).
 * The same bound: a reader more than `maxLagBytes` behind (Node's unwritten bytes) is dropped,
 * its connection closed so that it reconnects with Last-Event-ID.
 */
export class DirectSink implements StreamHub.StreamSink, Subscriber {
  /** Set once attached; detaches from the hub when the subscriber is destroyed (client gone). */
  detach: (() => void) | undefined = undefined
  #limit = -1
  #gone = false
  /** What the hub handed over (the replay) before the head could be written; then undefined. */
  #pending: Array<Uint8Array> | undefined = []
  #ended = false
  /** The keep-alive tick of the last write; -1 before the first. */
  #wroteAt = -1

  constructor(
    private readonly open: Set<Subscriber>,
    /** The keep-alive clock's current tick. */
    private readonly tick: () => number,
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
    this.#wroteAt = this.tick()
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

  heartbeat(tick: number): void {
    if (tick - this.#wroteAt < ticksPerBeat || this.#pending !== undefined || this.#gone) return
    if (!this.response.writableEnded) this.send(Sse.keepAlive)
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
