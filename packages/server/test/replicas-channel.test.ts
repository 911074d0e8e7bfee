import { FakeModelServer, type RecordedRequest } from "@aide/testing"
import { type FakeTelegram, startFakeTelegram } from "@aide/testing/fixtures"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, killAll } from "./support/process.js"
import { eventually, heldLeases, type Replica, type Replicas, startReplicas } from "./support/replicas.js"
import { password, request } from "./support/server.js"

/**
 * A channel's realtime connection across two real `aide-server` processes on one PostgreSQL
 * database (issue 23): both run the bundled Telegram plugin on one bot token, only the holder
 * of the channel's lease long-polls, and when it is SIGKILLed the other takes the polling over
 * and answers. The fake Bot API answers a second concurrent poller 409 Conflict, as Telegram
 * does, and counts a poll only while its client's connection is open: a killed replica's long
 * poll is gone with its socket, so two live pollers are the only way to see a conflict.
 */

const operator = { provider: "openai-compatible", model: "fake-model" }
const ownerId = 4242
const lease = "channel:telegram:telegram"

const fromOwner = (text: string) => ({
  message: {
    message_id: Date.now(),
    date: Math.floor(Date.now() / 1000),
    chat: { id: ownerId, type: "private" },
    from: { id: ownerId, is_bot: false, first_name: "Owner" },
    text,
  },
})
const asked = (text: string) => (r: RecordedRequest) => JSON.stringify(r.body.messages).includes(text)
const live = (replica: Replica) => replica.child.exitCode === null && replica.child.signalCode === null

describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("a channel's realtime connection across two replicas", () => {
  let model: FakeModelServer
  let telegram: FakeTelegram
  let cluster: Replicas | undefined

  beforeAll(async () => {
    await ensureBuilt()
    model = await FakeModelServer.start()
    telegram = await startFakeTelegram()
  }, 300_000)
  afterEach(async () => {
    await cluster?.close()
    cluster = undefined
    killAll()
  })
  afterAll(async () => {
    await model?.close()
    await telegram?.close()
  })

  const answered = (text: string) =>
    eventually(
      `the answer "${text}" sent to the owner`,
      () => telegram.sent.some((sent) => String(sent.chat_id) === String(ownerId) && String(sent.text).includes(text)),
      15_000,
    )

  it("polls from one replica only, and moves to the other when its holder is SIGKILLed", async () => {
    cluster = await startReplicas(1, { OPENAI_COMPATIBLE_BASE_URL: model.url })
    const [a] = cluster.replicas as [Replica]
    const setup = await request(`${a.url}/api/auth/setup`, { body: { password } })
    expect(setup.status).toBe(201)
    const token = setup.body.token as string
    const telegramSettings = {
      enabled: true,
      botToken: telegram.token,
      ownerId: String(ownerId),
      apiRoot: telegram.apiRoot,
    }
    const patched = await request(`${a.url}/api/config`, {
      method: "PATCH",
      token,
      body: { models: { operator }, plugins: { telegram: telegramSettings } },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    // B starts with the plugin already enabled (it reads the config document at start).
    const b = await cluster.start()
    const loadedOn = async (replica: Replica) => {
      const listed = await request(`${replica.url}/api/plugins`, { token })
      return (listed.body.plugins as Array<any>).find((entry) => entry.id === "telegram")?.provides.channels.loaded
    }
    await eventually(
      "the channel loaded on both replicas",
      async () => (await loadedOn(a)) && (await loadedOn(b)),
      20_000,
    )
    await eventually("one replica polls", () => telegram.activePolls === 1, 10_000)

    // Steady state: both replicas run the channel; B tries the lease every third of its 2 s
    // lifetime, so two lifetimes give it six chances to start a second poller (the holder's
    // polls run in other processes: there is no clock to inject, only time to let pass).
    await new Promise((resolve) => setTimeout(resolve, 4000))
    expect(telegram.conflicts).toBe(0)
    expect(telegram.peakPolls).toBe(1)
    const holders = cluster.replicas.filter((replica) => heldLeases(replica).has(lease))
    expect(holders).toHaveLength(1)

    model.script({ match: asked("before the kill"), text: "Answered by the holder." })
    telegram.pushUpdate(fromOwner("before the kill"))
    await answered("Answered by the holder.")

    const holder = holders[0]!
    const other = holder === a ? b : a
    holder.child.kill("SIGKILL")
    await holder.exited
    const killedAt = Date.now()
    // The killed replica's long poll ends with its socket (its plugin process exits with it).
    await eventually(
      "the killed replica's poll dropped",
      () => telegram.activePolls === 0 || heldLeases(other).has(lease),
      5_000,
    )
    await eventually(
      "the other replica polls",
      () => heldLeases(other).has(lease) && telegram.activePolls === 1,
      10_000,
    )
    const takeoverMs = Date.now() - killedAt
    // The lease lives 2 s; renewals are tried every 667 ms; grammY starts with getMe and deleteWebhook.
    expect(takeoverMs).toBeLessThan(6_000)
    console.log(`channel takeover after SIGKILL: ${takeoverMs} ms (AIDE_LEASE_TTL=2)`)

    model.script({ match: asked("after the kill"), text: "Answered after the failover." })
    telegram.pushUpdate(fromOwner("after the kill"))
    await answered("Answered after the failover.")
    expect(live(other)).toBe(true)
    expect(heldLeases(other).has(lease)).toBe(true)
    // Never two live pollers, before, during or after the hand-over.
    expect(telegram.conflicts).toBe(0)
    expect(telegram.peakPolls).toBe(1)
  }, 90_000)
})
