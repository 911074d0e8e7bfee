import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Logger, TestClock } from "effect"
import * as ChannelRegistry from "../src/channels/ChannelRegistry.js"
import type { OutgoingMessage } from "../src/channels/gateway/ChannelContract.js"
import type { PairingRequest } from "../src/channels/gateway/ChannelConversations.js"
import * as ChannelConversations from "../src/channels/gateway/ChannelConversations.js"
import type { ChannelAccess, ChannelEndpoint } from "../src/channels/gateway/ChannelEndpoint.js"
import * as ChannelGateway from "../src/channels/gateway/ChannelGateway.js"
import { PairingNotifier } from "../src/channels/gateway/PairingNotifier.js"
import * as WebhookReplays from "../src/channels/gateway/WebhookReplays.js"
import { Chat, type ChatInput } from "../src/chat/Chat.js"
import { InvalidChatRequest } from "../src/chat/ChatErrors.js"
import * as Ids from "../src/ids/Ids.js"
import { noticeOf } from "../src/inbox/PairingInbox.js"
import * as RateLimiter from "../src/ratelimit/RateLimiter.js"
import * as MemoryThreads from "../src/threads/MemoryThreads.js"

/** What reached chat, what the channel was sent, what the owner was told, what was logged. */
const makeWorld = () => ({
  chat: [] as Array<ChatInput>,
  sent: [] as Array<OutgoingMessage>,
  notices: [] as Array<PairingRequest>,
  logs: [] as Array<string>,
})
type World = ReturnType<typeof makeWorld>

/** The gateway on in-memory stores; chat records each message and refuses it (a reply follows). */
const gatewayLayer = (world: World) =>
  ChannelGateway.layer().pipe(
    Layer.provide([
      Layer.succeed(
        Chat,
        Chat.of({
          send: (input) =>
            Effect.suspend(() => {
              world.chat.push(input)
              return Effect.fail(new InvalidChatRequest({ message: "recorded" }))
            }),
          approve: () => Effect.fail(new InvalidChatRequest({ message: "approval recorded" }) as never),
          stop: () => Effect.succeed(false),
        }),
      ),
      Layer.succeed(PairingNotifier, { requested: (request) => Effect.sync(() => void world.notices.push(request)) }),
      MemoryThreads.layer,
      ChannelConversations.layerMemory,
      ChannelRegistry.layer,
      RateLimiter.layerMemory,
      WebhookReplays.layerMemory,
    ]),
    Layer.provide(Ids.layer),
    Layer.provideMerge(ChannelConversations.layerMemory),
    Layer.provide(
      Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ message }) => void world.logs.push(String(message))),
      ),
    ),
  )

const endpoint = (world: World, access: ChannelAccess | null): ChannelEndpoint => ({
  pluginId: "tg",
  channelId: "bot",
  name: "Telegram",
  webhook: null,
  realtime: null,
  send: (message) => Effect.sync(() => void world.sent.push(message)),
  notify: null,
  access,
})

const owner = { id: "4242", name: "Ada" }
const stranger = { id: "666", name: "Eve [click](https://evil.example)" }
const access = (overrides: Partial<ChannelAccess> = {}): ChannelAccess => ({
  allowFrom: [owner.id],
  pairing: false,
  groups: false,
  ...overrides,
})

/** Lets the conversation fibers run to their reply. */
const settle = Effect.repeatN(Effect.yieldNow(), 50)

const setup = (world: World, rules: ChannelAccess | null) =>
  Effect.gen(function* () {
    const gateway = yield* ChannelGateway.ChannelGateway
    yield* gateway.register(endpoint(world, rules))
    const receive = (message: Parameters<typeof gateway.receive>[1]) =>
      Effect.zipRight(gateway.receive("tg:bot", message), settle)
    return { gateway, receive }
  })

describe("owner-only access", () => {
  it.scoped("allowFrom: the owner reaches the assistant; a stranger gets nothing, logged once by id", () => {
    const world = makeWorld()
    return Effect.gen(function* () {
      const { receive } = yield* setup(world, access())
      yield* receive({ conversationId: "c-1", text: "hi", sender: owner })
      yield* receive({ conversationId: "c-2", text: "secret stranger words", sender: stranger })
      yield* receive({ conversationId: "c-2", text: "again", sender: stranger })
      yield* receive({ conversationId: "c-3", text: "who am I" })
      expect(world.chat).toHaveLength(1)
      expect(world.sent.map((message) => message.conversationId)).toEqual(["c-1"])
      const ignored = world.logs.filter((line) => line.includes("ignored"))
      expect(ignored).toEqual([
        "channels: ignored a sender not allowed",
        "channels: ignored a message without a sender",
      ])
      expect(world.logs.join("\n")).not.toContain("secret stranger words")
      // An hour later the same stranger is logged again.
      yield* TestClock.adjust(Duration.hours(1))
      yield* receive({ conversationId: "c-2", text: "later", sender: stranger })
      expect(world.logs.filter((line) => line.includes("not allowed"))).toHaveLength(2)
    }).pipe(Effect.provide(gatewayLayer(world)))
  })

  it.scoped("without access settings every sender passes (in-process channels, signed webhooks)", () => {
    const world = makeWorld()
    return Effect.gen(function* () {
      const { receive } = yield* setup(world, null)
      yield* receive({ conversationId: "c-2", text: "anyone", sender: stranger })
      expect(world.sent.map((message) => message.conversationId)).toEqual(["c-2"])
    }).pipe(Effect.provide(gatewayLayer(world)))
  })

  it.scoped("groups: dropped unless groups is on and the assistant is mentioned, by an allowed sender", () => {
    const world = makeWorld()
    return Effect.gen(function* () {
      const gateway = yield* ChannelGateway.ChannelGateway
      yield* gateway.register(endpoint(world, access({ groups: false })))
      yield* gateway.receive("tg:bot", {
        conversationId: "g",
        text: "@bot hi",
        sender: owner,
        group: true,
        mentioned: true,
      })
      yield* settle
      expect(world.sent).toEqual([])
    }).pipe(
      Effect.zipRight(
        Effect.gen(function* () {
          const gateway = yield* ChannelGateway.ChannelGateway
          yield* gateway.register(endpoint(world, access({ groups: true, pairing: true })))
          const send = (message: Parameters<typeof gateway.receive>[1]) =>
            Effect.zipRight(gateway.receive("tg:bot", message), settle)
          yield* send({ conversationId: "g", text: "chatter", sender: owner, group: true })
          yield* send({ conversationId: "g", text: "@bot hi", sender: stranger, group: true, mentioned: true })
          yield* send({ conversationId: "g", text: "@bot hi", sender: owner, group: true, mentioned: true })
          expect(world.sent.map((message) => message.conversationId)).toEqual(["g"])
          // No pairing request from a group, even with pairing on.
          expect(world.notices).toEqual([])
        }).pipe(Effect.provide(gatewayLayer(world)), Effect.scoped),
      ),
      Effect.provide(gatewayLayer(world)),
    )
  })

  it.scoped("pairing: one request per stranger, told to the owner; approved, the stranger may talk", () => {
    const world = makeWorld()
    return Effect.gen(function* () {
      const { gateway, receive } = yield* setup(world, access({ pairing: true }))
      yield* receive({ conversationId: "c-2", text: "let me in", sender: stranger })
      yield* receive({ conversationId: "c-2", text: "please", sender: stranger })
      expect(world.sent).toEqual([])
      expect(world.notices).toHaveLength(1)
      const listed = yield* gateway.pairings("tg")
      expect(listed.pairings).toHaveLength(1)
      const request = listed.pairings[0]!
      expect(request).toMatchObject({ channelId: "bot", senderId: stranger.id, senderName: stranger.name })
      expect(request.code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/)
      expect(request.expiresAt.getTime() - request.createdAt.getTime()).toBe(3_600_000)

      const decided = yield* gateway.decidePairing("tg", request.code.toLowerCase(), true)
      expect(decided.senderId).toBe(stranger.id)
      const again = yield* Effect.either(gateway.decidePairing("tg", request.code, true))
      expect(Either.isLeft(again) && again.left._tag).toBe("PairingNotFound")
      expect(yield* gateway.pairings("tg")).toMatchObject({ pairings: [], senders: [{ senderId: stranger.id }] })

      yield* receive({ conversationId: "c-2", text: "thanks", sender: stranger })
      expect(world.sent.map((message) => message.conversationId)).toEqual(["c-2"])
      // Taken off the list, the sender is a stranger again (and may ask again).
      expect(yield* gateway.removeSender("tg", "bot", stranger.id)).toBe(true)
      yield* receive({ conversationId: "c-2", text: "still here?", sender: stranger })
      expect(world.sent).toHaveLength(1)
      expect(world.notices).toHaveLength(2)
    }).pipe(Effect.provide(gatewayLayer(world)))
  })

  it.scoped(
    "pairing: requests expire after an hour, are bounded per channel, and a rejected one lets no one in",
    () => {
      const world = makeWorld()
      return Effect.gen(function* () {
        const { gateway, receive } = yield* setup(world, access({ pairing: true }))
        for (let index = 0; index < 12; index++) {
          yield* receive({ conversationId: `s-${index}`, text: "hi", sender: { id: `s-${index}` } })
        }
        expect((yield* gateway.pairings("tg")).pairings).toHaveLength(10)
        expect(world.notices).toHaveLength(10)
        const first = world.notices[0]!
        yield* gateway.decidePairing("tg", first.code, false)
        yield* receive({ conversationId: "s-0", text: "hi again", sender: { id: "s-0" } })
        expect(world.sent).toEqual([])
        yield* TestClock.adjust(Duration.hours(1))
        expect((yield* gateway.pairings("tg")).pairings).toEqual([])
        const late = yield* Effect.either(gateway.decidePairing("tg", world.notices[1]!.code, true))
        expect(Either.isLeft(late)).toBe(true)
        yield* receive({ conversationId: "s-11", text: "hi", sender: { id: "s-11" } })
        expect(world.notices.at(-1)?.senderId).toBe("s-11")
      }).pipe(Effect.provide(gatewayLayer(world)))
    },
  )

  it.scoped("an approval pressed by a sender not allowed is refused like an unknown id", () => {
    const world = makeWorld()
    return Effect.gen(function* () {
      const { gateway } = yield* setup(world, access())
      const store = yield* ChannelConversations.ChannelConversations
      const conversation = { pluginId: "tg", channelId: "bot", conversationId: "g" }
      yield* store.saveApprovals(
        [{ approvalId: "ap-1", conversation, threadId: "t", runId: "r", toolCallId: "call" }],
        new Date(0),
      )
      const answer = { conversationId: "g", approvalId: "ap-1", approved: true }
      const refused = yield* Effect.either(gateway.answerApproval("tg:bot", { ...answer, sender: stranger }))
      expect(Either.isLeft(refused) && refused.left._tag).toBe("ApprovalNotFound")
      yield* gateway.answerApproval("tg:bot", { ...answer, sender: owner })
      yield* settle
      expect(world.sent.map((message) => message.conversationId)).toEqual(["g"])
    }).pipe(Effect.provide(gatewayLayer(world)))
  })

  it("the owner's inbox notice shows a stranger's chosen name inert", () => {
    const notice = noticeOf(
      {
        pluginId: "tg",
        channelId: "bot",
        code: "ABCD2345",
        senderId: "666",
        senderName: "Eve `x`\n[click](https://evil.example)",
        createdAt: new Date(0),
        expiresAt: new Date(3_600_000),
      },
      "Telegram",
    )
    expect(notice.subject).toBe("Pairing request on Telegram")
    expect(notice.body).toContain("**ABCD2345**")
    expect(notice.body).toContain("`Eve  x  [click](https://evil.example)`")
    expect(notice.destination).toBe("web")
  })
})
