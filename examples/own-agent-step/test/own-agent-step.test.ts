import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ChatTestServer,
  chat,
  eventually,
  isChunk,
  readWithAiSdk,
  resume,
  type SseEvent,
  sseReader,
  startChatServer,
  stop,
  textOfChunks,
  textOfParts,
  threadDetail,
} from "../../../packages/server/test/support/chat.js"
import { request } from "../../../packages/server/test/support/server.js"
import { homeTools, unlocked } from "../src/home.js"
import * as ScriptedStep from "../src/scriptedStep.js"

/** Holds each word of an answer until the test lets it go (`open`); open unless closed. */
const gate = () => {
  let waiting: Array<() => void> = []
  let closed = false
  return {
    beforeWord: () => (closed ? new Promise<void>((resolve) => waiting.push(resolve)) : Promise.resolve()),
    close: () => {
      closed = true
    },
    open: () => {
      closed = false
      for (const resolve of waiting) resolve()
      waiting = []
    },
  }
}

const pace = gate()
let server: ChatTestServer
beforeAll(async () => {
  // The real server over a real socket, its operator model a fake OpenAI-compatible server: the
  // scripted step is given that model and never calls it.
  server = await startChatServer({
    kernel: { agentStep: ScriptedStep.layer({ beforeWord: pace.beforeWord }), tools: homeTools },
  })
})
afterAll(() => server.close())

/** The chunks of SSE events, without the `[DONE]` terminator. */
const chunks = (events: ReadonlyArray<SseEvent>) =>
  events.filter((event) => event.data !== "[DONE]").map((event) => JSON.parse(event.data))

/** The pending tool call of a stored assistant message. */
const pendingCall = (message: { readonly parts: ReadonlyArray<any> }) =>
  message.parts.find((part) => part.type === "dynamic-tool" && part.state === "approval-requested")

describe("examples/own-agent-step: a scripted agent step behind Aide's unchanged HTTP API", () => {
  it("streams the step's answer, resumable while it runs, and stores the thread's messages", async () => {
    pace.close()
    const response = await chat(server, "good morning")
    expect(response.status).toBe(200)
    const threadId = response.headers.get("x-thread-id")!
    const first = sseReader(response)
    await first.until(isChunk("text-delta"))
    // A second client joins the running stream (GET …/stream): it gets the run from its start.
    const joined = sseReader(await resume(server, threadId))
    await joined.until(isChunk("text-delta"))
    pace.open()
    const [sent, replayed] = [await first.rest(), await joined.rest()]
    const text = textOfChunks(chunks(sent))
    expect(text).toBe("You said: good morning")
    expect(textOfChunks(chunks(replayed))).toBe(text)

    // Persistence is Aide's: the owner's message and the step's answer, with the run's metadata.
    const { body } = await threadDetail(server, threadId)
    expect(body.messages.map((message: any) => message.role)).toEqual(["user", "assistant"])
    expect(textOfParts(body.messages[1].parts)).toBe(text)
    expect(body.messages[1].metadata).toMatchObject({ threadId, runId: expect.any(String) })
    // The operator model Aide resolved was handed to the step, never called.
    expect(server.model.requests).toHaveLength(0)
  })

  it("a tool needing approval suspends the run; POST /api/chat/approve runs it and the step goes on", async () => {
    const response = await chat(server, "please open the door")
    const paused = await readWithAiSdk(response)
    const threadId = response.headers.get("x-thread-id")!
    const call = pendingCall(paused!)
    expect(call).toMatchObject({ toolName: "home_unlock_door", input: { door: "front" } })
    expect(unlocked).toEqual([])

    // The suspended run is Aide's: stored with the call waiting, approved through the HTTP API.
    const stored = (await threadDetail(server, threadId)).body.messages.at(-1)
    expect(pendingCall(stored)).toMatchObject({ toolCallId: call.toolCallId })
    const approved = await fetch(`${server.url}/api/chat/approve`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${server.token}` },
      body: JSON.stringify({ runId: (paused!.metadata as { runId: string }).runId, threadId, approved: true }),
    })
    expect(approved.status).toBe(200)
    const continued = await readWithAiSdk(approved, paused)
    expect(unlocked).toEqual(["front"])
    expect(continued!.id).toBe(paused!.id)
    expect(textOfParts(continued!.parts as any)).toBe("The front door is open.")

    const messages = (await threadDetail(server, threadId)).body.messages
    expect(messages).toHaveLength(2)
    expect(messages[1].parts.find((part: any) => part.toolCallId === call.toolCallId)).toMatchObject({
      state: "output-available",
      output: { unlocked: true },
    })
  })

  it("memory is Aide's: the step's tool call writes working memory, the next run's system prompt holds it", async () => {
    const first = await chat(server, "remember I take my tea without sugar")
    const threadId = first.headers.get("x-thread-id")!
    expect(textOfParts((await readWithAiSdk(first))!.parts as any)).toBe("Noted.")
    const memory = await request(`${server.url}/api/memory/working`, { token: server.token })
    expect(memory.body.content).toContain("I take my tea without sugar")

    const second = await chat(server, "what do you remember?", threadId)
    expect(textOfParts((await readWithAiSdk(second))!.parts as any)).toContain("I take my tea without sugar")
  })

  it("stop is Aide's: POST /api/chat/:threadId/stop aborts the step's signal, and what it sent is stored", async () => {
    pace.close()
    const response = await chat(server, "a long story about the sea")
    const threadId = response.headers.get("x-thread-id")!
    const reader = sseReader(response)
    await reader.until(isChunk("text-delta"))
    expect((await stop(server, threadId)).body).toMatchObject({ stopped: true })
    pace.open()
    await reader.rest()
    const answer = await eventually(async () => {
      const messages = (await threadDetail(server, threadId)).body.messages
      return messages.length === 2 ? messages[1] : undefined
    })
    // The first word went out before the stop; the rest was never produced.
    expect(textOfParts(answer.parts)).toBe("You")
    expect(answer.metadata).toMatchObject({ interrupted: "stopped" })
  })
})
