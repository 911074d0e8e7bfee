// Telegram: time from a platform message to the first outbound message, over the fake Bot API.
// The plugin is loaded by a real kernel (the conformance kit's harness, SQLite in a temporary
// folder), long-polls the fake, and each owner message is answered through the fake model. The
// clock runs from `pushUpdate` (the update is served to the waiting poll at once) to the fake's
// first `sendMessage` for that message: polling, the gateway, the chat run, the send.
//
//   node --import tsx bench/channels/telegram.mjs     # env BENCH_MESSAGES [40], BENCH_WARMUP [5]
// The harness is read from its source (its built entry also holds the vitest suite); the kernel
// is @aide/kernel's JavaScript (the install's `prepare`, or `pnpm build`).
import { fileURLToPath } from "node:url"
import { startChannel } from "../../packages/testing/src/channels/ChannelHarness.ts"
import { startFakeTelegram } from "../../packages/testing/src/fixtures/telegramBotApi.ts"
import { measure, report } from "./support.mjs"

const OWNER = 4242
const fake = await startFakeTelegram()
const channel = await startChannel({
  directory: fileURLToPath(new URL("../../packages/plugin-telegram", import.meta.url)),
  config: { botToken: fake.token, ownerId: String(OWNER), apiRoot: fake.apiRoot },
})
let messageId = 1
const times = await measure(async (index) => {
  const text = `ping ${index}`
  channel.model.script({
    text: `pong ${index}`,
    match: (request) => JSON.stringify(request.body.messages).includes(text),
  })
  const answered = fake.waitFor("sendMessage", (call) => String(call.params.text).includes(`pong ${index}`), 30_000)
  const started = performance.now()
  fake.pushUpdate({
    message: {
      message_id: messageId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: OWNER, type: "private" },
      from: { id: OWNER, is_bot: false, first_name: "Ada" },
      text,
    },
  })
  await answered
  return performance.now() - started
})
await channel.close()
await fake.close()
report("telegram", times)
process.exit(0)
