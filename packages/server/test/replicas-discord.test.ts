import { FakeModelServer, type RecordedRequest } from "@aide/testing"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type FakeDiscord, startFakeDiscord } from "../../plugin-discord/test/fake-discord.js"
import { ensureBuilt, killAll } from "./support/process.js"
import { eventually, heldLeases, type Replica, type Replicas, startReplicas } from "./support/replicas.js"
import { password, request } from "./support/server.js"

/**
 * A channel in the compartment sandbox across two real `aide-server` processes on one PostgreSQL
 * database (issue 35): both run the bundled Discord plugin with one bot token, only the holder of
 * the channel's lease keeps a Gateway connection (through the brokered WebSocket, opened by that
 * server process), and when it is SIGKILLed the other connects and answers. The fake Gateway is
 * on loopback over plain ws:, allowed because the owner typed its address into `apiBase`.
 */

const operator = { provider: "openai-compatible", model: "fake-model" }
const owner = "200000000000000001"
const lease = "channel:discord:discord"
const dmOf = (userId: string) => String(BigInt(userId) + 100_000_000_000_000_000n)

const asked = (text: string) => (r: RecordedRequest) => JSON.stringify(r.body.messages).includes(text)
const open = (discord: FakeDiscord) => discord.connections.filter((connection) => connection.socket.readyState === 1)

describe.runIf(process.env.AIDE_TEST_DATABASE_URL)(
  "a compartment channel's Gateway connection across two replicas",
  () => {
    let model: FakeModelServer
    let discord: FakeDiscord
    let cluster: Replicas | undefined

    beforeAll(async () => {
      await ensureBuilt()
      model = await FakeModelServer.start()
      discord = await startFakeDiscord({ dmChannelOf: dmOf, bucket: { limit: 50, windowMs: 1_000 } })
    }, 300_000)
    afterEach(async () => {
      await cluster?.close()
      cluster = undefined
      killAll()
    })
    afterAll(async () => {
      await model?.close()
      await discord?.close()
    })

    const answered = (text: string) =>
      eventually(
        `the answer "${text}" posted to the owner's DM`,
        () => discord.messages.some((message) => message.channelId === dmOf(owner) && message.content.includes(text)),
        15_000,
      )
    const ownerWrites = async (text: string) => {
      await eventually("a live Gateway session", () => discord.ready(), 15_000)
      discord.userMessage({ authorId: owner, channelId: dmOf(owner), content: text })
    }

    it("connects from one replica only, and from the other when its holder is SIGKILLed", async () => {
      cluster = await startReplicas(1, { OPENAI_COMPATIBLE_BASE_URL: model.url })
      const [a] = cluster.replicas as [Replica]
      const setup = await request(`${a.url}/api/auth/setup`, { body: { password } })
      expect(setup.status).toBe(201)
      const token = setup.body.token as string
      const patched = await request(`${a.url}/api/config`, {
        method: "PATCH",
        token,
        body: {
          models: { operator },
          plugins: { discord: { enabled: true, botToken: discord.token, allowFrom: owner, apiBase: discord.apiBase } },
        },
      })
      expect(patched.status, JSON.stringify(patched.body)).toBe(200)
      const b = await cluster.start()
      const loadedOn = async (replica: Replica) => {
        const listed = await request(`${replica.url}/api/plugins`, { token })
        return (listed.body.plugins as Array<any>).find((entry) => entry.id === "discord")?.provides.channels.loaded
      }
      await eventually(
        "the channel loaded on both replicas",
        async () => (await loadedOn(a)) && (await loadedOn(b)),
        30_000,
      )
      await eventually("one Gateway connection", () => open(discord).length === 1, 15_000)
      // Two lease lifetimes (2 s each) in which the other replica could have connected too.
      await new Promise((resolve) => setTimeout(resolve, 4000))
      expect(open(discord)).toHaveLength(1)
      const holders = cluster.replicas.filter((replica) => heldLeases(replica).has(lease))
      expect(holders).toHaveLength(1)

      model.script({ match: asked("before the kill"), text: "Answered by the holder." })
      await ownerWrites("before the kill")
      await answered("Answered by the holder.")

      const holder = holders[0]!
      const other = holder === a ? b : a
      const identified = discord.identifies.length + discord.resumes.length
      holder.child.kill("SIGKILL")
      await holder.exited
      // The killed process's sockets die with it; the survivor takes the lease and connects.
      await eventually(
        "the other replica holds the lease and a new session",
        () =>
          heldLeases(other).has(lease) &&
          discord.identifies.length + discord.resumes.length > identified &&
          discord.ready(),
        20_000,
      )
      expect(open(discord)).toHaveLength(1)

      model.script({ match: asked("after the kill"), text: "Answered after the failover." })
      await ownerWrites("after the kill")
      await answered("Answered after the failover.")
      expect(open(discord)).toHaveLength(1)
    }, 120_000)
  },
)
