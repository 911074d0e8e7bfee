import { Effect, FiberRef, Layer } from "effect"
import { ChatRuns } from "../chat/ChatRuns.js"
import { Inbox, webDestination } from "../inbox/Inbox.js"
import { type PushPayload, WebPush } from "./WebPush.js"

/**
 * The inbox, pushing each new web-inbox message to the owner's browsers (in the background: a
 * slow push service never holds up `create`). Messages for a channel reach the owner there; the
 * "Browser notifications" channel pushes its own.
 */
export const inbox: Layer.Layer<Inbox, never, Inbox | WebPush> = Layer.effect(
  Inbox,
  Effect.gen(function* () {
    const inner = yield* Inbox
    const push = yield* WebPush
    return Inbox.of({
      ...inner,
      create: (input) =>
        Effect.tap(inner.create(input), (message) =>
          message.destination === webDestination
            ? push.notifyLater({ title: message.subject, body: message.body, url: "/app/inbox" })
            : Effect.void,
        ),
    })
  }),
)

/** Pushes held by the `atomically` a fiber runs in: sent once it commits, dropped if it rolls back. */
const heldPushes = FiberRef.unsafeMake<Array<PushPayload> | undefined>(undefined)

/**
 * The approvals store, pushing "approval waiting" when a run pauses on tool calls, once the
 * suspended run is committed: a suspend inside `atomically` pushes when that transaction commits
 * (never for one rolled back), so a notification always names an approval the owner can open.
 * The notification names the tools, as the console's approval card does, never their inputs.
 */
export const chatRuns: Layer.Layer<ChatRuns, never, ChatRuns | WebPush> = Layer.effect(
  ChatRuns,
  Effect.gen(function* () {
    const inner = yield* ChatRuns
    const push = yield* WebPush
    const send = (payloads: ReadonlyArray<PushPayload>) => Effect.forEach(payloads, push.notifyLater, { discard: true })
    return ChatRuns.of({
      ...inner,
      atomically: (effect) =>
        Effect.flatMap(FiberRef.get(heldPushes), (outer) => {
          // Nested: the outermost transaction commits, and sends.
          if (outer !== undefined) return inner.atomically(effect)
          const held: Array<PushPayload> = []
          return Effect.tap(Effect.locally(inner.atomically(effect), heldPushes, held), () => send(held))
        }),
      suspend: (run) =>
        Effect.zipRight(
          inner.suspend(run),
          Effect.flatMap(FiberRef.get(heldPushes), (held) => {
            const payload: PushPayload = {
              title: run.calls.length === 1 ? "Approval waiting" : `${run.calls.length} approvals waiting`,
              body: `Allow ${[...new Set(run.calls.map((call) => call.toolName))].join(", ")}?`,
              url: `/app/chat/${encodeURIComponent(run.threadId)}`,
            }
            if (held === undefined) return push.notifyLater(payload)
            held.push(payload)
            return Effect.void
          }),
        ),
    })
  }),
)
