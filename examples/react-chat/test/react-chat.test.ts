import { Chat } from "@ai-sdk/react"
import { createAideClient } from "@aide/client"
import { ToolRegistry } from "@aide/kernel"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, startChatServer } from "../../../packages/server/test/support/chat.js"
import { password } from "../../../packages/server/test/support/server.js"
import { chatOptions } from "../src/chatOptions.js"

const ran: Array<unknown> = []
const tools = ToolRegistry.source({
  id: "home",
  kind: "plugin",
  tools: Effect.sync(() => [
    {
      name: "unlock_door",
      description: "Unlocks the front door",
      inputSchema: { type: "object", properties: {} },
      requireApproval: true,
      execute: (input: unknown) =>
        Effect.sync(() => {
          ran.push(input)
          return { unlocked: true }
        }),
    },
  ]),
})

let server: ChatTestServer
beforeAll(async () => {
  server = await startChatServer({ kernel: { tools } })
})
afterAll(() => server.close())

describe("examples/react-chat: @ai-sdk/react's Chat with the AideChat options", () => {
  it("sends, pauses for approval, and goes on once the owner allows", async () => {
    const client = createAideClient({ baseUrl: server.url })
    await client.auth.login(password)
    server.model.script(
      { text: "Hello!" },
      { toolCalls: [{ id: "call_1", name: "home_unlock_door", arguments: {} }] },
      { text: "The door is open." },
    )
    const chat = new Chat(chatOptions(client, "react-example"))
    await chat.sendMessage({ text: "Hi" })
    expect(chat.messages.at(-1)?.parts).toContainEqual(expect.objectContaining({ type: "text", text: "Hello!" }))

    await chat.sendMessage({ text: "Let me in" })
    const call = chat.messages.at(-1)!.parts.find((part) => part.type === "dynamic-tool") as any
    expect(call.state).toBe("approval-requested")
    await chat.addToolApprovalResponse({ id: call.approval.id, approved: true })
    await expect
      .poll(() => chat.messages.at(-1)?.parts.some((part) => part.type === "text" && part.text === "The door is open."))
      .toBe(true)
    expect(ran).toHaveLength(1)
  })
})
