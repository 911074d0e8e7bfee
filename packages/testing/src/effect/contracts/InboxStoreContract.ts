import { InboxStore as Module } from "@aide/kernel/storage"
import { Effect, type Layer, Option } from "effect"
import { describe, expect } from "../EffectVitest.js"
import { contractIt } from "./ContractTest.js"

const { InboxStore } = Module
const time = (minutes: number) => new Date(Date.parse("2030-01-01T00:00:00.000Z") + minutes * 60_000)
const message = (id: string, minutes: number, status: "pending" | "sent" = "pending") => ({
  id,
  subject: `Subject ${id}`,
  body: "Body",
  threadId: null,
  destination: "telegram",
  status,
  createdAt: time(minutes),
})

/**
 * The contract of `InboxStore`: newest first, patches, and delivery leases one owner at a time.
 * Run it on your store's Layer (a fresh store per test).
 */
export const inboxStoreContract = (name: string, store: Layer.Layer<Module.InboxStore, unknown>) =>
  describe(name, () => {
    const it = contractIt(store)

    it.effect("lists newest first (equal times: the later insert first), archived apart", () =>
      Effect.gen(function* () {
        const inbox = yield* InboxStore
        yield* inbox.insert(message("a", 1))
        yield* inbox.insert(message("b", 2))
        yield* inbox.insert(message("c", 2))
        const archived = yield* inbox.update("a", { archived: true }, time(3))
        expect(Option.map(archived, (m) => m.archivedAt)).toEqual(Option.some(time(3)))
        // Archiving again keeps the first time.
        yield* inbox.update("a", { archived: true, read: true }, time(9))
        expect((yield* inbox.list(false)).map((m) => m.id)).toEqual(["c", "b"])
        expect((yield* inbox.list(true)).map((m) => [m.id, m.read, m.archivedAt])).toEqual([["a", true, time(3)]])
        expect(yield* inbox.update("gone", { read: true }, time(3))).toEqual(Option.none())
        expect(yield* inbox.remove("b")).toBe(true)
        expect(yield* inbox.remove("b")).toBe(false)
        expect(yield* inbox.get("b")).toEqual(Option.none())
      }),
    )

    it.effect("a pending delivery is leased by one owner until the lease runs out", () =>
      Effect.gen(function* () {
        const inbox = yield* InboxStore
        yield* inbox.insert(message("p", 1))
        yield* inbox.insert(message("done", 0, "sent"))
        expect(yield* inbox.pendingUnleased(time(1), 10)).toEqual(["p"])
        const claims = yield* Effect.all(
          ["x", "y", "z"].map((owner) => inbox.claim("p", owner, time(1), time(2))),
          { concurrency: "unbounded" },
        )
        expect(claims.filter(Option.isSome)).toHaveLength(1)
        expect(yield* inbox.pendingUnleased(time(1), 10)).toEqual([])
        expect(Option.isNone(yield* inbox.claim("done", "x", time(1), time(2)))).toBe(true)
        // After the lease ran out another owner may take it; the old owner's renew then fails.
        const first = claims.findIndex(Option.isSome)
        const owner = ["x", "y", "z"][first] ?? "x"
        expect(Option.isSome(yield* inbox.claim("p", "late", time(3), time(4)))).toBe(true)
        expect(yield* inbox.renew("p", owner, time(5))).toBe(false)
        expect(yield* inbox.renew("p", "late", time(5))).toBe(true)
        yield* inbox.finish("p", owner, "sent", null)
        expect(Option.map(yield* inbox.get("p"), (m) => m.status)).toEqual(Option.some("pending"))
        yield* inbox.finish("p", "late", "failed", "down")
        expect(Option.map(yield* inbox.get("p"), (m) => m.status)).toEqual(Option.some("failed"))
        expect(yield* inbox.pendingUnleased(time(10), 10)).toEqual([])
      }),
    )

    it.effect("release frees the lease at once", () =>
      Effect.gen(function* () {
        const inbox = yield* InboxStore
        yield* inbox.insert(message("r", 1))
        yield* inbox.claim("r", "x", time(1), time(60))
        yield* inbox.release("r", "x")
        expect(yield* inbox.pendingUnleased(time(2), 10)).toEqual(["r"])
      }),
    )
  })
