import { fileURLToPath } from "node:url"
import { type ChannelDriver, runChannelConformance } from "@aide/testing/channels"
import { startFakeEchoChat } from "./fake-echo-chat.js"

let fake: Awaited<ReturnType<typeof startFakeEchoChat>>
let messageId = 0
let last: Record<string, unknown> | undefined

/** Drives the fake Echo Chat the way its users would; the kit checks what Aide answers there. */
const driver: ChannelDriver = {
  start: async () => {
    fake = await startFakeEchoChat()
    return { config: { baseUrl: fake.url, notifyTo: "dm-100001" } }
  },
  directConversation: (userId) => `dm-${userId}`,
  sendAsUser: async ({ senderId, conversationId, text }) => {
    last = { kind: "message", messageId: ++messageId, conversationId, senderId, senderName: `User ${senderId}`, text }
    fake.push(last)
  },
  // Echo Chat retries a delivery it is unsure of: the same message (same messageId) again.
  redeliverLast: async () => fake.push(last!),
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
