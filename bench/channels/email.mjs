// E-mail: time from a platform message to the first outbound message, over a real mail server
// (Dovecot for IMAP and LMTP delivery, smtp-server as the submission server, both on loopback:
// the plugin's own test harness). The plugin is loaded by a real kernel (the conformance kit's
// harness, SQLite in a temporary folder) and each owner mail is answered through the fake model.
// The clock runs from the mail handed to Dovecot (LMTP) to the answer accepted by the SMTP
// server: IMAP IDLE's notice, fetch and parse, the gateway, the chat run, the SMTP send.
// Mails are 0.5 s apart, as mail comes: back to back, the channel would still be busy with the
// previous one and see the next without waiting for IDLE.
//
//   node --import tsx bench/channels/email.mjs     # env BENCH_MESSAGES [40], BENCH_WARMUP [5]
// Needs Debian's Dovecot (apt-get install dovecot-imapd dovecot-lmtpd); skips with a notice without it.
import { fileURLToPath } from "node:url"
import { emailDriver } from "../../packages/plugin-email/test/email-driver.ts"
import { unavailable } from "../../packages/plugin-email/test/mail-server.ts"
import { startChannel } from "../../packages/testing/src/channels/ChannelHarness.ts"
import { measure, report } from "./support.mjs"

const reason = unavailable()
if (reason !== null) {
  console.log(`email: skipped (${reason})`)
  process.exit(0)
}
const driver = emailDriver()
const { config } = await driver.start()
const owner = driver.userId(0)
const conversationId = driver.directConversation(owner)
const channel = await startChannel({
  directory: fileURLToPath(new URL("../../packages/plugin-email", import.meta.url)),
  // The default scan interval: what is measured is IDLE, not the driver's quick polling.
  config: { ...config, allowFrom: owner, pollSeconds: 60 },
})
const server = driver.server()
const times = await measure(async (index) => {
  await new Promise((resolve) => setTimeout(resolve, 500))
  const text = `ping ${index}`
  channel.model.script({
    text: `pong ${index}`,
    match: (request) => JSON.stringify(request.body.messages).includes(text),
  })
  const before = server.received.length
  const started = performance.now()
  await driver.sendAsUser({ senderId: owner, conversationId, text })
  const deadline = started + 30_000
  while (!server.received.slice(before).some((mail) => mail.raw.includes(`pong ${index}`))) {
    if (performance.now() > deadline) throw new Error(`no answer to ${text}`)
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  return performance.now() - started
})
await channel.close()
await driver.stop()
report("email", times)
process.exit(0)
