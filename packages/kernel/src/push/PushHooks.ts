import { Effect, Layer } from "effect"
import { ChatRuns } from "../chat/ChatRuns.js"
import { Inbox, webDestination } from "../inbox/Inbox.js"
import { WebPush } from "./WebPush.js"

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

/**
 * The approvals store, pushing "approval waiting" when a run pauses on tool calls. The
 * notification names the tools, as the console's approval card does, never their inputs.
 */
export const chatRuns: Layer.Layer<ChatRuns, never, ChatRuns | WebPush> = Layer.effect(
  ChatRuns,
  Effect.gen(function* () {
    const inner = yield* ChatRuns
    const push = yield* WebPush
    return ChatRuns.of({
      ...inner,
      suspend: (run) =>
        Effect.tap(inner.suspend(run), () =>
          push.notifyLater({
            title: run.calls.length === 1 ? "Approval waiting" : `${run.calls.length} approvals waiting`,
            body: `Allow ${[...new Set(run.calls.map((call) => call.toolName))].join(", ")}?`,
            url: `/app/chat/${encodeURIComponent(run.threadId)}`,
          }),
        ),
    })
  }),
)
