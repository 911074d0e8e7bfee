/**
 * What a channel's test gives the conformance kit: its fake platform, driven the way a user on
 * that platform would. The kit chooses who talks (`userId(0)` is the owner) and checks what
 * Aide answers through the plugin, as the platform received it.
 */
export interface ChannelDriver {
  /**
   * Starts the fake platform and answers the plugin's settings pointing at it (base URL, token,
   * secrets…), without `enabled`, `allowFrom`, `pairing` or `groups`: the kit adds those, with
   * `userId(0)` as the only allowed sender. `env`: host variables the plugin's manifest declares.
   */
  readonly start: () => Promise<{
    readonly config: Readonly<Record<string, unknown>>
    readonly env?: Readonly<Record<string, string>>
  }>
  /**
   * The platform id of the kit's user `n` (a user id, an e-mail address, an E.164 number…);
   * default `String(100001 + n)`. User 0 is the owner; the kit uses users 0 to 3.
   */
  readonly userId?: (n: number) => string
  /** The conversation id the plugin gives a direct conversation with `userId` (Telegram: the user id). */
  readonly directConversation: (userId: string) => string
  /**
   * Where the plugin sends notifications (`notify`): the owner's conversation, as `outbound`
   * reports it; default `directConversation(userId(0))`.
   */
  readonly notificationConversation?: string
  /** A group conversation id, where the platform has groups: the kit checks they are not answered by default. */
  readonly groupConversation?: string
  /**
   * A user writes `text` in a conversation (`group`: in a group room; `mentioned`: mentioning the
   * assistant there). Resolves once the platform delivered it, or queued it for the plugin to fetch.
   */
  readonly sendAsUser: (message: {
    readonly senderId: string
    readonly conversationId: string
    readonly text: string
    readonly group?: boolean
    readonly mentioned?: boolean
  }) => Promise<void>
  /**
   * Everything the plugin posted on the platform so far, in order: each message's conversation,
   * its text as users see it (formatting markup removed, so its length is what the platform
   * counts against `platformLimit`), and the approvals it offers (buttons…), if any.
   */
  readonly outbound: () => Promise<
    ReadonlyArray<{
      readonly conversationId: string
      readonly text: string
      readonly approvals?: ReadonlyArray<{ readonly approvalId?: string }>
    }>
  >
  /**
   * `senderId` presses approve (`approved`) or deny on the latest approval offered in the
   * conversation (or the one with `approvalId`, when the platform shows it).
   */
  readonly clickApproval: (input: {
    readonly conversationId: string
    readonly senderId: string
    readonly approvalId?: string
    readonly approved: boolean
  }) => Promise<void>
  /** The platform's message length limit (Telegram 4,096, Discord 2,000…). */
  readonly platformLimit: number
  /** Realtime channels: the platform drops the connection; the channel must come back by itself. */
  readonly dropConnection?: () => Promise<void>
  /**
   * Platforms that redeliver (webhook retries, at-least-once queues): delivers the last message
   * sent with `sendAsUser` again, the way the platform retries it; the channel must answer once.
   */
  readonly redeliverLast?: () => Promise<void>
  /** Stops the fake platform (after the kernel is closed). */
  readonly stop: () => Promise<void>
}

/** The kit's user `n` on the driver's platform. */
export const userOf = (driver: ChannelDriver, n: number) => driver.userId?.(n) ?? String(100_001 + n)
