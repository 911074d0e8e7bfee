import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, startChatServer, textOfChunks } from "./support/chat.js"
import { request } from "./support/server.js"

describe("built-in tools over HTTP", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server.close())
  beforeEach(() => server.model.reset())

  it("the model is offered current_time and notify", async () => {
    server.model.script({ text: "Hi." })
    await (await chat(server, "Hello")).text()
    const offered = (server.model.requests[0]!.body.tools as unknown as Array<{ function: { name: string } }>).map(
      (tool) => tool.function.name,
    )
    expect(offered).toEqual(expect.arrayContaining(["current_time", "notify"]))
  })

  it("notify puts a message in the web inbox with the conversation's thread, without approval", async () => {
    server.model.script(
      {
        toolCalls: [{ id: "n1", name: "notify", arguments: { subject: "Pick up milk", body: "On the way **home**." } }],
      },
      { text: "I left you a note." },
    )
    const response = await chat(server, "Remind me to pick up milk")
    const threadId = response.headers.get("x-thread-id")
    const chunks = chunksOf(await response.text())
    expect(chunks.some((chunk) => chunk.type === "tool-approval-request")).toBe(false)
    expect(chunks).toContainEqual(
      expect.objectContaining({
        type: "tool-output-available",
        toolCallId: "n1",
        output: expect.objectContaining({ status: "sent" }),
      }),
    )
    expect(textOfChunks(chunks)).toBe("I left you a note.")
    const inbox = await request(`${server.url}/api/inbox`, { token: server.token })
    expect(inbox.body.messages).toContainEqual(
      expect.objectContaining({
        subject: "Pick up milk",
        body: "On the way **home**.",
        threadId,
        destination: "web",
        status: "sent",
        read: false,
      }),
    )
  })

  it("notify with an unknown destination is a tool error the model reads", async () => {
    server.model.script(
      { toolCalls: [{ id: "n2", name: "notify", arguments: { subject: "x", body: "y", destination: "Pager" } }] },
      { text: "That channel does not exist." },
    )
    const chunks = chunksOf(await (await chat(server, "Page me")).text())
    expect(chunks).toContainEqual(
      expect.objectContaining({
        type: "tool-output-error",
        toolCallId: "n2",
        errorText: 'unknown destination "Pager"',
      }),
    )
  })

  it("current_time answers in the configured time zone", async () => {
    await request(`${server.url}/api/config`, {
      method: "PATCH",
      token: server.token,
      body: { timezone: "Asia/Tokyo" },
    })
    server.model.script({ toolCalls: [{ id: "t1", name: "current_time", arguments: {} }] }, { text: "It is late." })
    const chunks = chunksOf(await (await chat(server, "What time is it?")).text())
    const output = chunks.find((chunk) => chunk.type === "tool-output-available")?.output
    expect(output).toMatchObject({ timezone: "Asia/Tokyo" })
    expect(Math.abs(Date.parse(output.iso) - Date.now())).toBeLessThan(60_000)
  })
})
