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
  /** Who wrote it, as the platform knows them (channels decide who may talk; see `ownerId` fields). */
  readonly sender?: { readonly id: string; readonly name?: string }
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
  }) => Promise<void>
}

/**
 * A messaging channel. Channels run with full trust (`host`) in the plugin's own process.
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
