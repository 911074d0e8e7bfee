#!/usr/bin/env node
// WhatsApp channel (issue 35, plan item 6): time from a platform message (a signed webhook
// delivery from the fake Graph API, through the kernel's route logic: signature, replay check)
// to the first outbound message (`/{phone-number-id}/messages` reaching the fake), over loopback.
// The context's `receive` answers at once through the channel's `send` (what the gateway does
// after the model; no model here): the figure is the channel's and the webhook route's cost.
//
//   node --import tsx bench/channels/whatsapp.mjs          # BENCH_MESSAGES [200]
//
// Prints median and p95 in ms.

import whatsapp from "../../packages/plugin-whatsapp/src/channel.js"
import { PHONE_NUMBER_ID, startFakeGraph } from "../../packages/plugin-whatsapp/test/fake-graph.ts"
import { makeContext, startWebhookFront } from "../../packages/plugin-whatsapp/test/support.ts"

const messages = Number(process.env.BENCH_MESSAGES ?? 200)
const fake = await startFakeGraph()
const config = {
  accessToken: fake.token,
  phoneNumberId: PHONE_NUMBER_ID,
  appSecret: fake.appSecret,
  verifyToken: "v",
  allowFrom: "+16505551234",
  apiRoot: fake.apiRoot,
}
const channel = whatsapp({ config, env: {} })
const { context } = makeContext(config)
context.receive = async (message) => {
  // The gateway queues and answers later; answering here keeps the model out of the figure.
  setImmediate(() =>
    channel
      .send({ conversationId: message.conversationId, text: `echo: ${message.text}`, approvals: [] }, context)
      .catch(() => undefined),
  )
}
// The route's per-client limit (60 a minute) would stop the bench: lifted here.
const front = await startWebhookFront(channel, context, fake.appSecret, "v", 1_000_000)

const times = []
for (let i = 0; i < messages; i++) {
  const before = fake.sent.length
  const body = JSON.stringify(fake.notification({ messages: [fake.textMessage("16505551234", `m${i}`)] }))
  const begun = performance.now()
  await fake.deliver(front.url, body)
  while (fake.sent.length === before) await new Promise((resolve) => setImmediate(resolve))
  times.push(performance.now() - begun)
}
await front.close()
await fake.close()

times.sort((a, b) => a - b)
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))]
console.log(
  `whatsapp: platform message → first outbound message over ${messages} messages: median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms`,
)
