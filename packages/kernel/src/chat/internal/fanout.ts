import type { StreamFrame, StreamSink } from "../StreamHub.js"

const encoder = new TextEncoder()

/** `id: N` + `data: <json>`: the AI SDK's UI message stream framing, with event ids. */
export const encodeFrame = (id: number, chunk: unknown): Uint8Array =>
  encoder.encode(`id: ${id}\ndata: ${JSON.stringify(chunk)}\n\n`)

/** The frames as one buffer: what every subscriber is handed, so nothing is copied per subscriber. */
const joinFrames = (frames: ReadonlyArray<StreamFrame>): Uint8Array => {
  if (frames.length === 1) return frames[0]!.bytes
  let length = 0
  for (const frame of frames) length += frame.bytes.length
  const joined = new Uint8Array(length)
  let offset = 0
  for (const frame of frames) {
    joined.set(frame.bytes, offset)
    offset += frame.bytes.length
  }
  return joined
}

interface Batch {
  readonly frames: ReadonlyArray<StreamFrame>
  readonly bytes: Uint8Array
}

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

/** Subscribers handed the same frames at the same moments, and how far they have got. */
class Channel {
  readonly sinks = new Set<StreamSink>()
  /** Frames handed to the sinks so far; the rest wait for the next flush. */
  #delivered = 0
  #scheduled = false

  constructor(
    private readonly frames: Array<StreamFrame>,
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
    const to = this.frames.length
    if (from === to) return
    this.#delivered = to
    if (this.sinks.size === 0) return
    const frames = this.frames.slice(from, to)
    const bytes = joinFrames(frames)
    // A sink may detach itself (a subscriber too far behind) while we iterate: Set allows it.
    for (const sink of this.sinks) sink.onFrames(frames, bytes)
  }
}

/**
 * One thread's stream: its encoded frames and the subscribers following it. Plain synchronous
 * code (the hub wraps it in Effects): an event costs one encoding and, per batch, one join,
 * then one call per subscriber with the same bytes.
 */
export class LiveStream {
  readonly frames: Array<StreamFrame> = []
  finished = false
  /** Streams of the kernel (the run's own response): every batch at once. */
  readonly #followers: Channel
  /** Attached transports (reconnected clients): counted, capped, coalesced under load. */
  readonly #attached: Channel
  /** The whole stream so far as one buffer, shared by every subscriber that joins before the next event. */
  #replay: (Batch & { readonly upTo: number }) | undefined

  constructor(private readonly fanout: Fanout) {
    this.#followers = new Channel(this.frames, () => 0)
    this.#attached = new Channel(this.frames, () => fanout.windowMs())
  }

  get attachedCount(): number {
    return this.#attached.sinks.size
  }

  publish(chunk: unknown): void {
    if (this.finished) return
    const id = this.frames.length + 1
    this.frames.push({ id, bytes: encodeFrame(id, chunk) })
    this.#followers.schedule()
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
    return !this.finished || (afterEventId !== undefined && afterEventId <= this.frames.length)
  }

  /**
   * Writes `sink` the frames after `afterEventId`, then registers it for the live ones (or ends
   * it, when finished). Synchronous, so no event falls between the replay and the registration.
   * `attached`: a transport's subscriber (counted and coalesced) rather than a kernel Stream.
   * Returns the function that detaches it.
   */
  attach(sink: StreamSink, afterEventId: number | undefined, attached: boolean): () => void {
    const channel = attached ? this.#attached : this.#followers
    // Pending frames go to the channel's sinks first: the replay below includes them.
    channel.flush()
    const after = afterEventId === undefined || afterEventId > this.frames.length ? 0 : afterEventId
    const replay = this.replayAfter(after)
    if (replay !== undefined) sink.onFrames(replay.frames, replay.bytes)
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

  private replayAfter(after: number): Batch | undefined {
    const upTo = this.frames.length
    if (after >= upTo) return undefined
    if (after > 0) {
      const frames = this.frames.slice(after)
      return { frames, bytes: joinFrames(frames) }
    }
    // Many clients joining at once (a reload of many tabs) share one replay buffer.
    if (this.#replay?.upTo !== upTo) {
      const frames = this.frames.slice()
      this.#replay = { upTo, frames, bytes: joinFrames(frames) }
    }
    return this.#replay
  }
}
