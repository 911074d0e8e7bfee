#!/usr/bin/env node
// Slack channel (issue 35, plan item 6): time from a platform message (an `events_api` envelope
// sent by the fake Socket Mode endpoint) to the first outbound message (`chat.postMessage`
// reaching the fake Web API), over loopback. The channel runs as Aide runs it, with a context
// whose `receive` answers at once through the channel's `send` (what the gateway does after the
// model; no model here): the figure is the channel's own cost, the platform's side included.
//
//   node --import tsx bench/channels/slack.mjs          # BENCH_MESSAGES [200]
//
// Prints median and p95 in ms.

import slack from "../../packages/plugin-slack/src/channel.js"
import { connectWebSocket, startFakeSlack } from "../../packages/plugin-slack/test/fake-slack.ts"

const messages = Number(process.env.BENCH_MESSAGES ?? 200)
const fake = await startFakeSlack()
const config = { botToken: fake.botToken, appToken: fake.appToken, allowFrom: "UOWNER1", apiRoot: fake.apiRoot }
const channel = slack({ config, env: {} })
const controller = new AbortController()
const context = {
  env: {},
  config,
  signal: controller.signal,
  log: () => undefined,
  fetch: globalThis.fetch,
  webSocket: connectWebSocket,
  receive: async (message) => {
    // The gateway queues and answers later; answering here keeps the model out of the figure.
    setImmediate(
      () =>
        channel
          .send({ conversationId: message.conversationId, text: `echo: ${message.text}`, approvals: [] }, context)
          .catch(() => undefined), // the last one may still be in flight when the bench stops
    )
  },
  answerApproval: async () => undefined,
}
const started = channel.realtime.start(context)
while (fake.openSockets() === 0) await new Promise((resolve) => setTimeout(resolve, 5))

const times = []
for (let i = 0; i < messages; i++) {
  const before = fake.posted.length
  const begun = performance.now()
  fake.pushEvent({
    type: "message",
    channel: "DOWNER1",
    channel_type: "im",
    user: "UOWNER1",
    text: `m${i}`,
    ts: `1.${i}`,
  })
  while (fake.posted.length === before) await new Promise((resolve) => setImmediate(resolve))
  times.push(performance.now() - begun)
}
controller.abort()
await started
await fake.close()

times.sort((a, b) => a - b)
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))]
console.log(
  `slack: platform message → first outbound message over ${messages} messages: median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms`,
)
