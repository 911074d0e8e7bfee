import { aideChatTransport, createAideClient } from "@aide/client"
import { approvalProbe } from "@aide/testing/fixtures"
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { NodeChat } from "./nodeChat.js"
import { type ChatTestServer, startWithClient } from "./support.js"

const { executions, tools: probe } = approvalProbe()

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")

let server: ChatTestServer
let client: ReturnType<typeof createAideClient>
beforeAll(async () => {
  ;({ server, client } = await startWithClient({ kernel: { tools: probe } }))
})
afterAll(() => server.close())
beforeEach(() => server.model.reset())

const newChat = (id: string) =>
  new NodeChat({
    id,
    transport: aideChatTransport(client),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  })

describe("aideChatTransport through the AI SDK's Chat", () => {
  it("sendMessage streams the answer; the client's message id is the server's", async () => {
    server.model.script({ text: "Hi from Aide" })
    const chat = newChat("transport-send")
    await chat.sendMessage({ text: "Hello" })
    expect(chat.status).toBe("ready")
    const [user, assistant] = chat.messages
    expect(textOf(assistant)).toBe("Hi from Aide")
    const detail = await client.threads.get("transport-send")
    expect(detail.messages.map((m) => m.id)).toEqual([user!.id, assistant!.id])
    // A fork by the client-side id works.
    const fork = await client.threads.fork("transport-send", user!.id)
    expect(fork.clonedMessageCount).toBe(0)
  })

  it("addToolApprovalResponse reaches /api/chat/approve and the tool runs once", async () => {
    executions.length = 0
    server.model.script(
      { toolCalls: [{ id: "call_1", name: "probe_delete_file", arguments: { path: "/tmp/x" } }] },
      { text: "Deleted it." },
    )
    const chat = newChat("transport-approval")
    await chat.sendMessage({ text: "Delete /tmp/x" })
    const toolPart = chat.messages.at(-1)!.parts.find((part) => part.type === "dynamic-tool") as any
    expect(toolPart).toMatchObject({ state: "approval-requested", toolCallId: "call_1" })
    await chat.addToolApprovalResponse({ id: toolPart.approval.id, approved: true })
    await expect.poll(() => chat.status).toBe("ready")
    await expect.poll(() => textOf(chat.messages.at(-1))).toBe("Deleted it.")
    expect(executions).toEqual([{ path: "/tmp/x" }])
    const done = chat.messages.at(-1)!.parts.find((part) => part.type === "dynamic-tool") as any
    expect(done.state).toBe("output-available")
    // One assistant message, continued: the server's history agrees.
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"])
    const detail = await client.threads.get("transport-approval")
    expect(detail.messages.map((m) => m.id)).toEqual(chat.messages.map((m) => m.id))
  })

  it("a denial reaches the server and the tool never runs", async () => {
    executions.length = 0
    server.model.script(
      { toolCalls: [{ id: "call_2", name: "probe_delete_file", arguments: { path: "/etc" } }] },
      { text: "Fine, I won't." },
    )
    const chat = newChat("transport-denial")
    await chat.sendMessage({ text: "Delete /etc" })
    const toolPart = chat.messages.at(-1)!.parts.find((part) => part.type === "dynamic-tool") as any
    await chat.addToolApprovalResponse({ id: toolPart.approval.id, approved: false })
    await expect.poll(() => textOf(chat.messages.at(-1))).toBe("Fine, I won't.")
    expect(executions).toEqual([])
  })

  it("regenerate answers again on a branch holding what came before", async () => {
    server.model.script({ text: "First answer" }, { text: "Second answer" })
    const transport = aideChatTransport(client)
    const chat = new NodeChat({ id: "transport-regenerate", transport })
    await chat.sendMessage({ text: "Question" })
    expect(textOf(chat.messages.at(-1))).toBe("First answer")
    await chat.regenerate()
    expect(textOf(chat.messages.at(-1))).toBe("Second answer")
    const branch = transport.threadIdOf("transport-regenerate")
    expect(branch).not.toBe("transport-regenerate")
    const detail = await client.threads.get(branch)
    expect(detail.messages.map((m) => m.id)).toEqual(chat.messages.map((m) => m.id))
    expect(detail.forkInfo?.sourceThreadId).toBe("transport-regenerate")
  })

  it("regenerate after a failed answer answers again in the same thread: no branch", async () => {
    server.model.script({ error: { status: 400, message: "the model refused" } }, { text: "Second time lucky" })
    const transport = aideChatTransport(client)
    const chat = new NodeChat({ id: "transport-retry", transport })
    await chat.sendMessage({ text: "Try me" })
    expect(chat.error).toBeDefined()
    await chat.regenerate()
    expect(textOf(chat.messages.at(-1))).toBe("Second time lucky")
    expect(transport.threadIdOf("transport-retry")).toBe("transport-retry")
    const detail = await client.threads.get("transport-retry")
    expect(detail.messages.map((m) => m.id)).toEqual(chat.messages.map((m) => m.id))
    expect(detail.forks).toEqual({})
  })

  it("resumeStream picks up a running answer; nothing running is a no-op", async () => {
    const story = Array.from({ length: 20 }, (_, i) => `w${i} `)
    server.model.script({ text: story, chunkDelayMs: 20 })
    const sent = await client.chat.send({ text: "Go", threadId: "transport-resume" })
    const chat = newChat("transport-resume")
    await chat.resumeStream()
    expect(textOf(chat.messages.at(-1))).toBe(story.join(""))
    for await (const _ of sent.chunks);
    const idle = newChat("transport-resume")
    await idle.resumeStream()
    expect(idle.messages).toEqual([])
  })
})
