/** The bounds of a plugin process's brokered sockets (SocketBroker.ts, docs/plugin-sandbox.md). */

export interface SocketLimits {
  /** Sockets (WebSocket and TCP) open at once per plugin process. */
  readonly open: number
  /** One WebSocket message, or one write, in bytes; a larger inbound message closes the socket (1009). */
  readonly maxMessageBytes: number
  /** Bytes accepted for sending but not yet written to the network, per socket. */
  readonly maxBufferedBytes: number
  /** Events sent to the plugin and not yet taken; past it the socket stops reading. */
  readonly unacked: number
  /** Connection and handshake timeout. */
  readonly connectTimeoutMs: number
  /** Opening attempts: in flight, per second, burst (refused attempts included). */
  readonly opens: { readonly inFlight: number; readonly perSecond: number; readonly burst: number }
}

export const defaultSocketLimits: SocketLimits = {
  open: 16,
  maxMessageBytes: 1024 * 1024,
  maxBufferedBytes: 4 * 1024 * 1024,
  unacked: 16,
  connectTimeoutMs: 30_000,
  opens: { inFlight: 4, perSecond: 2, burst: 10 },
}
