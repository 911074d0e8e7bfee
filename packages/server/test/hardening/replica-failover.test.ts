import { randomUUID } from "node:crypto"
import { FakeModelServer, type RecordedRequest } from "@aide/testing"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, resume, sseReader, textOfChunks, textOfParts, threadDetail } from "../support/chat.js"
import { ensureBuilt, killAll } from "../support/process.js"
import { type Replica, type Replicas, startReplicas } from "../support/replicas.js"
import { password, request } from "../support/server.js"

/**
 * A replica SIGKILLed mid-answer (issue 32, item 5): within about `AIDE_LEASE_TTL` (2 s here)
 * its thread is free on the survivor, and a resume on the survivor ends with what was streamed
 * (the checkpoint persisted, then `[DONE]`), not after a 30-second stream lease of its own.
 * Spawned processes: the killed process is the subject.
 */

const ttlSeconds = 2
// Claims expire ⅔ to 1 × TTL after the kill; the rest is polling and the survivor's own reads.
const boundMs = 2 * ttlSeconds * 1000 + 1500
const operator = { provider: "openai-compatible", model: "fake-model" }
const redisUrl = process.env.AIDE_TEST_REDIS_URL
const isTitle = (r: RecordedRequest) => JSON.stringify(r.body.messages).includes("You name conversations")
const forMarker = (marker: string) => (r: RecordedRequest) =>
  !isTitle(r) && JSON.stringify(r.body.messages).includes(marker)

const variants = [
  { name: "PostgreSQL only", shared: false, env: () => ({}) },
  ...(redisUrl === undefined
    ? []
    : [
        {
          name: "PostgreSQL and Redis",
          shared: true,
          env: () => ({ REDIS_URL: redisUrl, AIDE_REDIS_PREFIX: `aide-test:${randomUUID()}:` }),
        },
      ]),
]

describe.runIf(process.env.AIDE_TEST_DATABASE_URL)("a replica killed mid-answer", () => {
  let model: FakeModelServer
  let cluster: Replicas | undefined

  beforeAll(async () => {
    await ensureBuilt()
    model = await FakeModelServer.start()
  }, 300_000)
  afterEach(async () => {
    await cluster?.close()
    cluster = undefined
    model.reset()
    killAll()
  })
  afterAll(async () => {
    await model?.close()
  })

  it.each(variants)(
    "on $name: the survivor frees the thread and ends its resume within 2 × TTL",
    async ({ shared, env }) => {
      cluster = await startReplicas(2, { OPENAI_COMPATIBLE_BASE_URL: model.url, ...env() })
      const [a, b] = cluster.replicas as [Replica, Replica]
      const setup = await request(`${a.url}/api/auth/setup`, { body: { password } })
      const token = setup.body.token as string
      expect(
        (await request(`${a.url}/api/config`, { method: "PATCH", token, body: { models: { operator } } })).status,
      ).toBe(200)
      const onB: ChatTestServer = { url: b.url, token } as ChatTestServer

      model.script({ endless: true, chunkDelayMs: 20, text: ["tick "], match: forMarker("count") })
      const response = await fetch(`${a.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ parts: [{ type: "text", text: "count for ever" }] }),
      })
      expect(response.status).toBe(200)
      const threadId = response.headers.get("x-thread-id")!
      const onAStream = sseReader(response)
      await onAStream.until((event) => event.data.includes("tick"))
      // A checkpoint (every 2 s) is in the database before the kill.
      let checkpointed = ""
      const until = Date.now() + 10_000
      while (checkpointed === "" && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        const detail = await threadDetail(onB, threadId)
        const answer = (detail.body.messages ?? []).find((message: any) => message.role === "assistant")
        if (answer?.metadata?.partial === true) checkpointed = textOfParts(answer.parts)
      }
      expect(checkpointed).toContain("tick")

      a.child.kill("SIGKILL")
      const killedAt = Date.now()
      await a.exited

      // A resume on B ends promptly: with what A streamed and an error chunk saying why (Redis
      // holds the stream), or at once with 204 (without Redis B never had A's stream).
      const resumed = await resume(onB, threadId)
      expect(resumed.status).toBe(shared ? 200 : 204)
      const events = shared ? await sseReader(resumed).rest() : []
      const resumeMs = Date.now() - killedAt
      if (shared) {
        const chunks = events.filter((event) => event.data !== "[DONE]").map((event) => JSON.parse(event.data))
        expect(events.at(-1)?.data).toBe("[DONE]")
        expect(textOfChunks(chunks).startsWith(checkpointed)).toBe(true)
        expect(chunks.at(-1)).toEqual({
          type: "error",
          errorText: "The server running this answer stopped; the answer is kept up to its last checkpoint.",
        })
      }

      // The thread is free on B: its next message is answered, not 409.
      model.script({ text: "Here again.", match: forMarker("still there") })
      let status = 0
      while (Date.now() - killedAt < boundMs + 30_000) {
        const next = await fetch(`${b.url}/api/chat`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ threadId, parts: [{ type: "text", text: "still there?" }] }),
        })
        status = next.status
        if (status !== 409) {
          expect(
            textOfChunks(
              (await sseReader(next).rest()).filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data)),
            ),
          ).toBe("Here again.")
          break
        }
        await next.text()
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const freeMs = Date.now() - killedAt
      console.info(
        `[failover] resume on B: ${resumed.status}, ended ${resumeMs} ms, thread free on B ${freeMs} ms after the kill`,
      )
      expect(status).toBe(200)
      expect(resumeMs).toBeLessThan(boundMs)
      expect(freeMs).toBeLessThan(boundMs)

      // What A had checkpointed stays, marked partial as after a crash of a lone server.
      const detail = await threadDetail(onB, threadId)
      const roles = detail.body.messages.map((message: any) => message.role)
      expect(roles).toEqual(["user", "assistant", "user", "assistant"])
      expect(detail.body.messages[1].metadata.partial).toBe(true)
      expect(textOfParts(detail.body.messages[1].parts).startsWith(checkpointed)).toBe(true)
    },
    90_000,
  )
})
