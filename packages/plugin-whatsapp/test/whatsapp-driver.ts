import { createHmac } from "node:crypto"
import type { ChannelDriver, DriverKit } from "@aide/testing/channels"
import { type FakeGraph, PHONE_NUMBER_ID, startFakeGraph } from "./fake-graph.js"

const VERIFY = "conformance-verify-token"

/**
 * The conformance kit's driver for the WhatsApp plugin over the fake Graph API: users write by
 * signed webhook deliveries through Aide's gateway (`kit.webhook`, `X-Hub-Signature-256` checked
 * there), tap reply buttons the same way, and what the plugin sends is read back from the fake's
 * `/messages`. Senders are E.164 (`+1650…`); a conversation is the sender's digits.
 */
export const whatsappDriver = (): ChannelDriver => {
  let fake: FakeGraph | undefined
  let kit: DriverKit | undefined
  let last: string | undefined
  const current = () => {
    if (fake === undefined || kit === undefined) throw new Error("the fake Graph API is not started")
    return { fake, kit }
  }
  const digits = (userId: string) => userId.replace(/^\+/, "")
  /** A delivery as Meta makes it: the notification, signed with the app secret, POSTed to Aide. */
  const deliver = async (body: string) => {
    const { fake, kit } = current()
    const signature = createHmac("sha256", fake.appSecret).update(body).digest("hex")
    const answer = await kit.webhook({
      headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${signature}` },
      body,
    })
    if (answer.status >= 400 && answer.status !== 409)
      throw new Error(`the webhook answered ${answer.status}: ${answer.body}`)
  }
  const approvalsOf = (message: Record<string, any>) =>
    ((message.interactive?.action?.buttons ?? []) as Array<{ reply?: { id?: string } }>)
      .map((button) => /^a:(.+)$/.exec(button.reply?.id ?? "")?.[1])
      .filter((id): id is string => id !== undefined)
      .map((approvalId) => ({ approvalId }))
  return {
    start: async (given) => {
      kit = given
      fake = await startFakeGraph()
      return {
        config: {
          accessToken: fake.token,
          phoneNumberId: PHONE_NUMBER_ID,
          appSecret: fake.appSecret,
          verifyToken: VERIFY,
          apiRoot: fake.apiRoot,
        },
      }
    },
    userId: (n) => `+1650555${String(1000 + n)}`,
    directConversation: digits,
    sendAsUser: async ({ senderId, text }) => {
      const { fake } = current()
      const from = digits(senderId)
      last = JSON.stringify(
        fake.notification({
          contacts: [{ profile: { name: `User ${from.slice(-4)}` }, wa_id: from }],
          messages: [fake.textMessage(from, text)],
        }),
      )
      await deliver(last)
    },
    outbound: async () =>
      current().fake.sent.map((message) => ({
        conversationId: String(message.to),
        text: String(message.text?.body ?? message.interactive?.body?.text ?? ""),
        approvals: approvalsOf(message),
      })),
    clickApproval: async ({ conversationId, senderId, approvalId, approved }) => {
      const { fake } = current()
      const offered = fake.sent
        .filter((message) => String(message.to) === conversationId && approvalsOf(message).length > 0)
        .filter((message) => approvalId === undefined || approvalsOf(message).some((a) => a.approvalId === approvalId))
        .at(-1)
      const id = approvalId ?? approvalsOf(offered ?? {})[0]?.approvalId
      if (offered === undefined || id === undefined) throw new Error(`no approval offered in ${conversationId}`)
      const from = digits(senderId)
      await deliver(
        JSON.stringify(
          fake.notification({
            messages: [
              {
                from,
                id: `wamid.tap-${Date.now()}`,
                timestamp: String(Math.floor(Date.now() / 1000)),
                type: "interactive",
                context: { from: "15550001111", id: offered.id },
                interactive: {
                  type: "button_reply",
                  button_reply: { id: `${approved ? "a" : "d"}:${id}`, title: approved ? "Approve" : "Deny" },
                },
              },
            ],
          }),
        ),
      )
    },
    // WhatsApp's own limit for a text message's body.
    platformLimit: 4096,
    // Meta retries a delivery it got no 200 for: the same body, the same signature.
    redeliverLast: async () => {
      if (last === undefined) throw new Error("nothing delivered yet")
      await deliver(last)
    },
    stop: async () => {
      await fake?.close()
    },
  }
}
