import type { StreamEvent, StreamSink } from "../StreamHub.js"

const noop = () => {}

/**
 * What the streams of one hub share: the count of attached subscribers (for the hub-wide cap)
 * and the write budget. Each event costs every subscriber a socket write; past `writeBudget`
 * subscribers × events per second, a stream coalesces its events for its attached subscribers
 * over a window of `subscribers / writeBudget` seconds (at most `maxWindowMs`), so the writes
 * per second stay near the budget however many subscribers there are.
 */
export class Fanout {
  subscribers = 0
  constructor(
    private readonly writeBudget: number,
    private readonly maxWindowMs: number,
  ) {}

  windowMs(): number {
    return Math.min(this.maxWindowMs, (1000 * this.subscribers) / this.writeBudget)
  }
}

/** Subscribers handed the same batches at the same moments, and how far they have got. */
class Channel {
  readonly sinks = new Set<StreamSink>()
  /** Events handed to the sinks so far; the rest wait for the next flush. */
  #delivered = 0
  #scheduled = false

  constructor(
    private readonly events: Array<StreamEvent>,
    /** 0: the next turn of the event loop (events published together still go as one batch). */
    private readonly delayMs: () => number,
  ) {}

  schedule(): void {
    if (this.#scheduled || this.sinks.size === 0) return
    this.#scheduled = true
    const delay = this.delayMs()
    if (delay < 1) setImmediate(this.flush)
    else setTimeout(this.flush, delay).unref()
  }

  readonly flush = (): void => {
    this.#scheduled = false
    const from = this.#delivered
    const to = this.events.length
    if (from === to) return
    this.#delivered = to
    if (this.sinks.size === 0) return
    // One array for every sink: the `StreamSink` contract a transport encodes once per batch on.
    const batch = this.events.slice(from, to)
    // A sink may detach itself (a subscriber too far behind) while we iterate: Set allows it.
    for (const sink of this.sinks) sink.onEvents(batch)
  }
}

/**
 * One thread's stream: its events and the subscribers following it. Plain synchronous code (the
 * hub wraps it in Effects): an event costs one object and, per batch, one array shared by every
 * subscriber of a channel.
 */
export class LiveStream {
  readonly events: Array<StreamEvent> = []
  finished = false
  /** Streams of the kernel (the run's own response): every batch at once. */
  readonly #followers: Channel
  /** Attached transports (reconnected clients): counted, capped, coalesced under load. */
  readonly #attached: Channel
  /** The whole stream so far as one batch, shared by every subscriber that joins before the next event. */
  #replay: ReadonlyArray<StreamEvent> | undefined

  constructor(private readonly fanout: Fanout) {
    this.#followers = new Channel(this.events, () => 0)
    this.#attached = new Channel(this.events, () => fanout.windowMs())
  }

  get attachedCount(): number {
    return this.#attached.sinks.size
  }

  publish(chunk: unknown): void {
    if (this.finished) return
    this.events.push({ id: this.events.length + 1, chunk })
    this.#followers.schedule()
    this.#attached.schedule()
  }

  /**
   * Appends `chunks` and hands them to the followers (the run's own response) at once, as one
   * batch: what a model read brought goes to the socket now, not on the next turn of the event
   * loop, which a run busy committing or titling would hold back. Attached subscribers keep
   * their schedule (coalesced under load).
   */
  publishAll(chunks: ReadonlyArray<unknown>): void {
    if (this.finished || chunks.length === 0) return
    for (const chunk of chunks) this.events.push({ id: this.events.length + 1, chunk })
    this.#followers.flush()
    this.#attached.schedule()
  }

  finish(): void {
    if (this.finished) return
    // Flushed first: a subscriber dropped while it is handed these leaves (and is uncounted) itself.
    this.#followers.flush()
    this.#attached.flush()
    this.finished = true
    this.fanout.subscribers -= this.#attached.sinks.size
    for (const channel of [this.#followers, this.#attached]) {
      const sinks = [...channel.sinks]
      channel.sinks.clear()
      for (const sink of sinks) sink.onEnd()
    }
  }

  /**
   * A resume from `afterEventId` (undefined: from the start) makes sense only while the stream
   * runs, or, once finished, for a client that was reading it (it sends the id it saw last). An
   * id past the last event belongs to an earlier run of the thread: it counts as absent.
   */
  resumable(afterEventId: number | undefined): boolean {
    return !this.finished || (afterEventId !== undefined && afterEventId <= this.events.length)
  }

  /**
   * Hands `sink` the events after `afterEventId`, then registers it for the live ones (or ends
   * it, when finished). Synchronous, so no event falls between the replay and the registration.
   * `attached`: a transport's subscriber (counted and coalesced) rather than a kernel Stream.
   * Returns the function that detaches it.
   */
  attach(sink: StreamSink, afterEventId: number | undefined, attached: boolean): () => void {
    const channel = attached ? this.#attached : this.#followers
    // Pending events go to the channel's sinks first: the replay below includes them.
    channel.flush()
    const after = afterEventId === undefined || afterEventId > this.events.length ? 0 : afterEventId
    const replay = this.replayAfter(after)
    if (replay !== undefined) sink.onEvents(replay)
    if (this.finished) {
      sink.onEnd()
      return noop
    }
    channel.sinks.add(sink)
    if (attached) this.fanout.subscribers++
    return () => {
      if (channel.sinks.delete(sink) && attached) this.fanout.subscribers--
    }
  }

  private replayAfter(after: number): ReadonlyArray<StreamEvent> | undefined {
    const upTo = this.events.length
    if (after >= upTo) return undefined
    if (after > 0) return this.events.slice(after)
    // Many clients joining at once (a reload of many tabs) share one replay batch, so a transport
    // encodes it once for all of them.
    if (this.#replay?.length !== upTo) this.#replay = this.events.slice()
    return this.#replay
  }
}
