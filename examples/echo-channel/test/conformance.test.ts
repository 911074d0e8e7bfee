import { fileURLToPath } from "node:url"
import { type ChannelDriver, runChannelConformance } from "@aide/testing/channels"
import { startFakeEchoChat } from "./fake-echo-chat.js"

let fake: Awaited<ReturnType<typeof startFakeEchoChat>>

/** Drives the fake Echo Chat the way its users would; the kit checks what Aide answers there. */
const driver: ChannelDriver = {
  start: async () => {
    fake = await startFakeEchoChat()
    return { config: { baseUrl: fake.url, notifyTo: "dm-100001" } }
  },
  directConversation: (userId) => `dm-${userId}`,
  sendAsUser: async ({ senderId, conversationId, text }) =>
    fake.push({ kind: "message", conversationId, senderId, senderName: `User ${senderId}`, text }),
  outbound: async () =>
    fake.posted.map((message) => ({
      conversationId: message.conversationId,
      text: message.text,
      approvals: (message.buttons ?? [])
        .filter((button) => button.data.startsWith("yes:"))
        .map((button) => ({ approvalId: button.data.slice(4) })),
    })),
  clickApproval: async ({ conversationId, senderId, approvalId, approved }) =>
    fake.push({ kind: "click", conversationId, senderId, data: `${approved ? "yes" : "no"}:${approvalId}` }),
  platformLimit: 500,
  dropConnection: async () => {
    while (fake.drop() === 0) await new Promise((resolve) => setTimeout(resolve, 20))
  },
  stop: () => fake.close(),
}

runChannelConformance({ plugin: fileURLToPath(new URL("..", import.meta.url)), driver })
