// Matrix: time from a platform message to the first outbound message, over the fake homeserver
// (packages/plugin-matrix/test/fake-homeserver.ts). The plugin is loaded by a real kernel (the
// conformance kit's harness, SQLite in a temporary folder), long-polls `/sync` through Aide's
// brokered fetch, and each owner message is answered through the fake model. The clock runs from
// the `m.room.message` entering the fake (which wakes the waiting long poll) to the fake storing
// the answer: the sync, the gateway, the chat run, the PUT with its transaction id.
//
//   node --import tsx bench/channels/matrix.mjs     # env BENCH_MESSAGES [40], BENCH_WARMUP [5]
import { fileURLToPath } from "node:url"
import { startFakeHomeserver } from "../../packages/plugin-matrix/test/fake-homeserver.ts"
import { startChannel } from "../../packages/testing/src/channels/ChannelHarness.ts"
import { measure, report } from "./support.mjs"

const OWNER = "@ada:fake.test"
const fake = await startFakeHomeserver()
const room = fake.roomWith(OWNER)
const channel = await startChannel({
  directory: fileURLToPath(new URL("../../packages/plugin-matrix", import.meta.url)),
  config: { homeserverUrl: fake.homeserverUrl, accessToken: fake.token, allowFrom: OWNER },
})
await fake.polling()
const times = await measure(async (index) => {
  const text = `ping ${index}`
  channel.model.script({
    text: `pong ${index}`,
    match: (request) => JSON.stringify(request.body.messages).includes(text),
  })
  const answered = (async () => {
    while (!String((await fake.nextSent()).content.body).includes(`pong ${index}`));
  })()
  const started = performance.now()
  fake.message(room, OWNER, text)
  await answered
  const elapsed = performance.now() - started
  // The next message once the channel waits in its long poll again (as a quiet room would find it).
  await fake.polling()
  return elapsed
})
await channel.close()
await fake.close()
report("matrix", times)
process.exit(0)
