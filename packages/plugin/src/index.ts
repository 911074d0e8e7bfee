/**
 * @aide/plugin: what an Aide plugin is made of, as types, and identity helpers that give a
 * plugin's objects their types. Nothing here runs in Aide: the loader accepts plain objects of
 * the same shapes, so a plugin works without importing this package.
 */
export type {
  AgentEntry,
  ChannelEntry,
  ConfigFieldDescriptor,
  ConfigFieldType,
  Declared,
  Permissions,
  PluginManifest,
  ToolEntry,
} from "./Manifest.js"

import type { PluginManifest } from "./Manifest.js"

/** Something a plugin wants the owner to see in `GET /api/plugins`. */
export interface Alert {
  readonly level: "info" | "warning" | "error"
  readonly message: string
}

/** A tool as listed in `GET /api/plugins`. */
export interface ToolManifest {
  readonly id: string
  readonly name: string
  readonly description: string
}

/** A JSON Schema (draft 2020-12 or 07) of a tool's input. */
export type JsonSchema = { readonly [key: string]: unknown }

/** What a tool call receives: only what the manifest declared and the owner granted. */
export interface ToolContext<Config = Readonly<Record<string, unknown>>> {
  /** The declared environment variables that are set on the host (others are absent). */
  readonly env: Readonly<Record<string, string>>
  /** The plugin's settings (`plugins.<id>` of the Aide config). */
  readonly config: Config
  /** The brokered fetch, present when `permissions.network` is declared. */
  readonly fetch?: typeof fetch
  /** Aborted when the call is cancelled or times out. */
  readonly signal: AbortSignal
  readonly log: (message: string, data?: unknown) => void
}

export interface ToolDefinition<Input = unknown, Output = unknown, Config = Readonly<Record<string, unknown>>> {
  /** Unique in the plugin; the model sees `<pluginId>:<id>`. */
  readonly id: string
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  readonly execute: (input: Input, context: ToolContext<Config>) => Output | Promise<Output>
}

export interface AgentDefinition {
  readonly id: string
  readonly name: string
  readonly description: string
  /** The agent's system instructions. */
  readonly instructions: string
  /** Overrides the model (else `plugins.<id>.agents.<agentId>.model`, else the operator's). */
  readonly model?: { readonly provider: string; readonly model: string }
  /** Ids of the tools it may use. */
  readonly useTools?: ReadonlyArray<string>
}

/** A file the owner sent through a channel, as a data URL (it becomes a chat file part). */
export interface InboundFile {
  readonly mediaType: string
  /** `data:<mediaType>;base64,…` */
  readonly url: string
  readonly filename?: string
}

/** A message that reached a channel and is meant for the assistant. */
export interface InboundMessage {
  /** The platform's conversation (a Telegram chat id…): one Aide thread per conversation. */
  readonly conversationId: string
  readonly text: string
  readonly files?: ReadonlyArray<InboundFile>
  /**
   * Who wrote it, as the platform knows them: its stable user id, e-mail address or E.164 phone
   * number. Aide decides who may talk (the plugin's `allowFrom` and `pairing` settings): a
   * channel passes every message on with its sender and does not filter itself.
   */
  readonly sender?: { readonly id: string; readonly name?: string }
  /** The conversation is a group room or channel (answered only with the plugin's `groups` on). */
  readonly group?: boolean
  /** The message mentions the assistant (in a group, only those are answered). */
  readonly mentioned?: boolean
}

/** A tool call waiting for the owner, sent with a reply so the channel can offer approve / deny. */
export interface PendingApproval {
  /** Opaque: hand it back to `answerApproval` as is. */
  readonly approvalId: string
  readonly toolName: string
  readonly input: unknown
}

/** What Aide sends back into a conversation: the assistant's answer to an inbound message. */
export interface OutgoingMessage {
  readonly conversationId: string
  /** Markdown. */
  readonly text: string
  readonly approvals: ReadonlyArray<PendingApproval>
}

/** What Aide pushes to the owner unprompted (an inbox message whose destination is the channel). */
export interface Notification {
  readonly subject: string
  /** Markdown. */
  readonly body: string
  readonly threadId: string | null
}

/** A webhook request as the channel sees it, after Aide verified it. */
export interface WebhookRequest {
  readonly method: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** The raw body, as text (at most 1 MiB). */
  readonly body: string
}

export interface WebhookResponse {
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** Where a webhook's secret is read: one of the plugin's config fields, or a declared env var. */
export type SecretSource = { readonly config: string } | { readonly env: string }

/**
 * How Aide checks a webhook request before the channel sees it (in constant time; a request
 * that fails, or any request while the secret is not set, is answered 401 and never forwarded).
 * - `token`: the header equals the secret (Telegram's `X-Telegram-Bot-Api-Secret-Token`).
 * - `hmac-sha256`: the header is the HMAC-SHA256 of the raw body under the secret, hex or
 *   base64, optionally after a prefix such as `sha256=` (GitHub, most automation tools). With
 *   `timestamp`, it is the HMAC of `<timestamp>.<body>` (or `baseString` filled in), the
 *   timestamp (Unix seconds) read from that header and refused when more than
 *   `toleranceSeconds` (default 300) from Aide's clock or absent. A signature already accepted within its window is refused (409): declare a
 *   timestamp, or a request can be replayed once its window has passed.
 */
export type WebhookVerification =
  | { readonly kind: "token"; readonly header: string; readonly secret: SecretSource }
  | {
      readonly kind: "hmac-sha256"
      readonly header: string
      readonly secret: SecretSource
      readonly encoding?: "hex" | "base64"
      readonly prefix?: string
      readonly timestamp?: {
        readonly header: string
        readonly toleranceSeconds?: number
        /** The signed string; default `{timestamp}.{body}` (Slack: `v0:{timestamp}:{body}`). */
        readonly baseString?: string
      }
      /**
       * Meta's GET handshake (`hub.mode=subscribe`, `hub.verify_token`, `hub.challenge`),
       * answered by Aide with the challenge when the token equals `verifyToken`.
       */
      readonly subscribe?: { readonly verifyToken: SecretSource }
    }

/** What a channel's functions receive. */
export interface ChannelContext<Config = Readonly<Record<string, unknown>>> {
  readonly env: Readonly<Record<string, string>>
  readonly config: Config
  /** Aborted when the channel is stopped (plugin disabled, reconfigured, server stopping). */
  readonly signal: AbortSignal
  readonly log: (message: string, data?: unknown) => void
  /** Hands a message to the assistant; resolves once it is accepted (the reply comes through `send`). */
  readonly receive: (message: InboundMessage) => Promise<void>
  /** The owner's answer to a `PendingApproval` (durable: it works after a restart too). */
  readonly answerApproval: (answer: {
    readonly conversationId: string
    readonly approvalId: string
    readonly approved: boolean
    /** Who pressed the button: checked like a message's sender (an unknown one is refused). */
    readonly sender?: { readonly id: string; readonly name?: string }
  }) => Promise<void>
  /**
   * `fetch`, performed by Aide to the channel entry's `permissions.network` hosts only (https;
   * resolved addresses checked: no private or loopback address unless the operator allows it).
   */
  readonly fetch: typeof fetch
  /**
   * A WebSocket opened by Aide to a declared host (`wss:`; `ws:` only where the operator allows
   * plain http), with its address checks; closed when the channel stops (`signal`).
   */
  readonly webSocket: (url: string | URL, options?: WebSocketOptions) => ChannelWebSocket
  /**
   * A TCP (or TLS) connection opened by Aide to a declared `host:port` (`permissions.network`
   * entry with a port, or a `config:` entry); resolves once connected.
   */
  readonly connect: (options: ConnectOptions) => Promise<ChannelSocket>
}

export interface WebSocketOptions {
  readonly protocols?: string | ReadonlyArray<string>
  /** Sent with the handshake (`Authorization`…); the handshake's own headers cannot be set. */
  readonly headers?: Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>
}

/** Events of a `ChannelWebSocket`, as WHATWG's (binary messages arrive as an `ArrayBuffer`). */
export interface ChannelWebSocketEvents {
  readonly open: { readonly type: "open" }
  readonly message: { readonly type: "message"; readonly data: string | ArrayBuffer }
  readonly error: { readonly type: "error"; readonly message: string }
  readonly close: { readonly type: "close"; readonly code: number; readonly reason: string; readonly wasClean: boolean }
}

/**
 * A WHATWG-style WebSocket whose connection lives in Aide. `send` queues (bounded: it throws past
 * 4 MiB waiting); a message larger than the operator's limit (1 MiB by default) closes it (1009).
 */
export interface ChannelWebSocket {
  readonly url: string
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: 0 | 1 | 2 | 3
  readonly protocol: string
  /** Bytes queued by `send` and not yet handed to Aide. */
  readonly bufferedAmount: number
  readonly CONNECTING: 0
  readonly OPEN: 1
  readonly CLOSING: 2
  readonly CLOSED: 3
  send(data: string | ArrayBuffer | ArrayBufferView): void
  /** `code`: 1000 or 3000–4999. */
  close(code?: number, reason?: string): void
  onopen: ((event: ChannelWebSocketEvents["open"]) => void) | null
  onmessage: ((event: ChannelWebSocketEvents["message"]) => void) | null
  onerror: ((event: ChannelWebSocketEvents["error"]) => void) | null
  onclose: ((event: ChannelWebSocketEvents["close"]) => void) | null
  addEventListener<K extends keyof ChannelWebSocketEvents>(
    type: K,
    listener: (event: ChannelWebSocketEvents[K]) => void,
  ): void
  removeEventListener<K extends keyof ChannelWebSocketEvents>(
    type: K,
    listener: (event: ChannelWebSocketEvents[K]) => void,
  ): void
}

export interface ConnectOptions {
  readonly host: string
  readonly port: number
  /** TLS from the start (e.g. IMAPS 993); `false` for plain TCP, upgraded later with `startTls`. */
  readonly tls: boolean
  /** The name the certificate is verified against; default `host`. */
  readonly servername?: string
}

/** A TCP/TLS connection whose socket lives in Aide; closed when the channel stops (`signal`). */
export interface ChannelSocket {
  /** Resolves once Aide has taken the bytes (in order); rejects when refused (size, socket closed). */
  write(data: Uint8Array | string): Promise<void>
  /** Half-closes (FIN) after the pending writes. */
  end(): Promise<void>
  /** Closes at once. */
  close(): Promise<void>
  /** Upgrades a plain connection to TLS (STARTTLS), verified against `servername` (default the host). */
  startTls(options?: { readonly servername?: string }): Promise<void>
  /** Data received; what arrived before the first listener is handed to it. */
  onData(listener: (data: Uint8Array) => void): void
  /** Called once when the connection is closed (`error`: why, when it failed). */
  onClose(listener: (event: { readonly error?: string }) => void): void
}

/**
 * A messaging channel. It runs in the plugin's own process: with full trust (`host`, the
 * default) or, when its manifest entry says `sandbox: "compartment"`, in SES, where its context's
 * `fetch`, `webSocket` and `connect` are its only network.
 * - `webhook`: Aide serves `POST /wh/<pluginId>/<channelId>` (public, rate-limited, verified as
 *   declared) and hands each verified request to `handle`.
 * - `realtime`: `start` keeps a connection (long polling, a socket) and resolves or rejects when
 *   it ends; Aide starts it again with backoff until the channel is stopped.
 * - `send`: replies into a conversation. `notify`: pushes to the owner; a channel with `notify`
 *   is a destination of scheduled tasks and inbox messages.
 */
export interface ChannelDefinition<Config = Readonly<Record<string, unknown>>> {
  /** Unique in the plugin; the destination key is `<pluginId>:<id>`. */
  readonly id: string
  readonly name: string
  readonly webhook?: {
    readonly verify: WebhookVerification
    readonly handle: (
      request: WebhookRequest,
      context: ChannelContext<Config>,
    ) => WebhookResponse | undefined | Promise<WebhookResponse | undefined>
  }
  readonly realtime?: { readonly start: (context: ChannelContext<Config>) => Promise<void> }
  readonly send?: (message: OutgoingMessage, context: ChannelContext<Config>) => Promise<void>
  readonly notify?: (notification: Notification, context: ChannelContext<Config>) => Promise<void>
}

/**
 * A channel entry module's default export: a channel, or a function of the plugin's settings
 * returning one (to offer a webhook or a realtime connection depending on a `mode` field).
 */
export type ChannelModule<Config = Readonly<Record<string, unknown>>> =
  | ChannelDefinition<Config>
  | ((setup: {
      readonly config: Config
      readonly env: Readonly<Record<string, string>>
    }) => ChannelDefinition<Config> | Promise<ChannelDefinition<Config>>)

export { splitMessage } from "./split.js"

/** The manifest, typed. */
export const definePlugin = <const M extends PluginManifest>(manifest: M): M => manifest

/** A tool, typed (`parameters` stays a JSON Schema; type `Input` yourself or infer it from one). */
export const defineTool = <Input = unknown, Output = unknown, Config = Readonly<Record<string, unknown>>>(
  tool: ToolDefinition<Input, Output, Config>,
): ToolDefinition<Input, Output, Config> => tool

export const defineAgent = <const A extends AgentDefinition>(agent: A): A => agent

export const defineChannel = <Config = Readonly<Record<string, unknown>>>(
  channel: ChannelModule<Config>,
): ChannelModule<Config> => channel
