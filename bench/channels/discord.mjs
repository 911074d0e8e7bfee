#!/usr/bin/env node
// Discord channel latency over the fake Discord (packages/plugin-discord/test/fake-discord.ts):
// from a user's MESSAGE_CREATE on the fake Gateway to the first message the channel creates
// through the fake REST API, with an assistant that answers at once (the channel's `receive`
// calls its `send`), so the figure is the channel's own path: Gateway frame → parse → receive →
// markdown → REST POST. Prints the median and p95 in ms.
//
//   node bench/channels/discord.mjs      # env MESSAGES [300], WARMUP [20]
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

const plugin = path.resolve(import.meta.dirname, "../../packages/plugin-discord")
// The fake is TypeScript: tsx's loader lets this script import it as is.
const { register } = await import("tsx/esm/api")
register()
const { startFakeDiscord } = await import(pathToFileURL(path.join(plugin, "test/fake-discord.ts")).href)
const { createDiscord } = await import(pathToFileURL(path.join(plugin, "src/channel.js")).href)
const { WebSocket } = createRequire(path.join(plugin, "package.json"))("ws")

const MESSAGES = Number(process.env.MESSAGES ?? 300)
const WARMUP = Number(process.env.WARMUP ?? 20)
const OWNER = "200000000000000001"
const DM = "300000000000000001"

const fake = await startFakeDiscord({ bucket: { limit: 1_000_000, windowMs: 1_000 } })
const config = { botToken: fake.token, allowFrom: OWNER, apiBase: fake.apiBase }
const channel = createDiscord({ config, env: {} })
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
  webSocket: (url) => new WebSocket(url),
}
const running = channel.realtime.start(context)
while (!fake.ready()) await new Promise((resolve) => setTimeout(resolve, 5))

const samples = []
for (let index = 0; index < WARMUP + MESSAGES; index++) {
  const created = fake.nextMessage()
  const started = performance.now()
  fake.userMessage({ authorId: OWNER, channelId: DM, content: `message ${index}` })
  const message = await created
  if (index >= WARMUP) samples.push(message.createdAt - started)
}
controller.abort()
await running
await fake.close()

samples.sort((a, b) => a - b)
const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]
console.log(
  JSON.stringify({
    channel: "discord",
    messages: MESSAGES,
    medianMs: +at(0.5).toFixed(2),
    p90Ms: +at(0.9).toFixed(2),
    p95Ms: +at(0.95).toFixed(2),
  }),
)
