#!/usr/bin/env node
// Matrix channel latency over the fake homeserver (packages/plugin-matrix/test/fake-homeserver.ts):
// from a user's `m.room.message` arriving at the fake to the first event the channel sends back,
// with an assistant that answers at once (the channel's `receive` calls its `send`), so the
// figure is the channel's own path: long poll woken → sync parsed → receive → Markdown to HTML →
// PUT with a transaction id (plus the `since` save in account data). Prints the median and p95 in ms.
//
//   node bench/channels/matrix.mjs      # env MESSAGES [300], WARMUP [20]
import path from "node:path"
import { pathToFileURL } from "node:url"

const plugin = path.resolve(import.meta.dirname, "../../packages/plugin-matrix")
// The fake is TypeScript: tsx's loader lets this script import it as is.
const { register } = await import("tsx/esm/api")
register()
const { startFakeHomeserver } = await import(pathToFileURL(path.join(plugin, "test/fake-homeserver.ts")).href)
const { default: matrix } = await import(pathToFileURL(path.join(plugin, "src/channel.js")).href)

const MESSAGES = Number(process.env.MESSAGES ?? 300)
const WARMUP = Number(process.env.WARMUP ?? 20)
const OWNER = "@ada:fake.test"

const fake = await startFakeHomeserver()
const room = fake.roomWith(OWNER)
const config = { homeserverUrl: fake.homeserverUrl, accessToken: fake.token, allowFrom: OWNER }
const channel = matrix({ config, env: {} })
const controller = new AbortController()
const context = {
  env: {},
  config,
  signal: controller.signal,
  log: () => undefined,
  receive: async (message) => {
    // An assistant with nothing to think about: the reply goes out at once.
    channel
      .send({ conversationId: message.conversationId, text: `**echo** ${message.text}`, approvals: [] }, context)
      .catch(() => undefined)
  },
  answerApproval: async () => undefined,
  fetch,
}
const running = channel.realtime.start(context)
await fake.polling()

const samples = []
for (let index = 0; index < WARMUP + MESSAGES; index++) {
  const sent = fake.nextSent()
  const started = performance.now()
  fake.message(room, OWNER, `message ${index}`)
  await sent
  if (index >= WARMUP) samples.push(performance.now() - started)
  // The next message only once the channel is back in its long poll.
  await fake.polling()
}
controller.abort()
await running
await fake.close()

samples.sort((a, b) => a - b)
const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]
console.log(
  JSON.stringify({
    channel: "matrix",
    messages: MESSAGES,
    medianMs: +at(0.5).toFixed(2),
    p90Ms: +at(0.9).toFixed(2),
    p95Ms: +at(0.95).toFixed(2),
  }),
)
