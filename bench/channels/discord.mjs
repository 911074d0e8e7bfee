// Discord: time from a platform message to the first outbound message, over the fake Discord
// (packages/plugin-discord/test/fake-discord.ts: Gateway on a real WebSocket server, REST on
// node:http). The plugin is loaded by a real kernel (the conformance kit's harness, SQLite in a
// temporary folder) and reaches the fake through Aide's brokered fetch and webSocket; each owner
// DM is answered through the fake model. The clock runs from the MESSAGE_CREATE dispatch to the
// fake REST API creating the answer: Gateway frame, the gateway, the chat run, the REST POST.
//
//   node --import tsx bench/channels/discord.mjs     # env BENCH_MESSAGES [40], BENCH_WARMUP [5]
import { fileURLToPath } from "node:url"
import { startFakeDiscord } from "../../packages/plugin-discord/test/fake-discord.ts"
import { startChannel } from "../../packages/testing/src/channels/ChannelHarness.ts"
import { measure, report } from "./support.mjs"

const OWNER = "200000000000000001"
const DM = "300000000000000001"
const fake = await startFakeDiscord({ bucket: { limit: 1_000, windowMs: 1_000 } })
const channel = await startChannel({
  directory: fileURLToPath(new URL("../../packages/plugin-discord", import.meta.url)),
  config: { botToken: fake.token, apiBase: fake.apiBase, allowFrom: OWNER },
})
while (!fake.ready()) await new Promise((resolve) => setTimeout(resolve, 10))
const times = await measure(async (index) => {
  const text = `ping ${index}`
  channel.model.script({
    text: `pong ${index}`,
    match: (request) => JSON.stringify(request.body.messages).includes(text),
  })
  const answered = (async () => {
    while (!(await fake.nextMessage()).content.includes(`pong ${index}`));
  })()
  const started = performance.now()
  fake.userMessage({ authorId: OWNER, channelId: DM, content: text })
  await answered
  return performance.now() - started
})
await channel.close()
await fake.close()
report("discord", times)
process.exit(0)
