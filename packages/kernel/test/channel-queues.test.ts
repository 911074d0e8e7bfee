import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import * as ConversationQueues from "../src/channels/gateway/internal/ConversationQueues.js"

describe("conversation queues", () => {
  it.scoped("jobs of one conversation run one at a time in order; a full queue refuses; others run beside", () =>
    Effect.gen(function* () {
      const queues = yield* ConversationQueues.make(2)
      const log: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const job = (name: string, wait?: Deferred.Deferred<void>) =>
        Effect.gen(function* () {
          log.push(`start ${name}`)
          if (wait !== undefined) yield* Deferred.await(wait)
          log.push(`end ${name}`)
        })
      expect(yield* queues.offer("c", job("1", gate))).toBe(true)
      expect(yield* queues.offer("c", job("2"))).toBe(true)
      expect(yield* queues.offer("c", job("3"))).toBe(false)
      expect(yield* queues.offer("d", job("d"))).toBe(true)
      yield* Effect.repeatN(Effect.yieldNow(), 10)
      expect(log).toEqual(["start 1", "start d", "end d"])
      yield* Deferred.succeed(gate, undefined)
      yield* Effect.repeatN(Effect.yieldNow(), 10)
      expect(log).toEqual(["start 1", "start d", "end d", "end 1", "start 2", "end 2"])
      expect(yield* queues.waiting("c")).toBe(0)
    }),
  )

  it.scoped("a failing job is logged and the next one still runs", () =>
    Effect.gen(function* () {
      const queues = yield* ConversationQueues.make(4)
      const ran: Array<string> = []
      yield* queues.offer("c", Effect.fail("boom"))
      yield* queues.offer("c", Effect.die("crash"))
      yield* queues.offer(
        "c",
        Effect.sync(() => ran.push("after")),
      )
      yield* Effect.repeatN(Effect.yieldNow(), 10)
      expect(ran).toEqual(["after"])
    }),
  )
})
