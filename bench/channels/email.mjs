// The e-mail channel over a real mail server (Dovecot + smtp-server on loopback, the test's own
// harness): the time from a mail handed to Dovecot (LMTP) to the channel's `receive` (IMAP IDLE
// notice, fetch, parse), and to the first outbound mail accepted by the SMTP server (the
// `receive` of this bench answers at once with `send`: no model, no gateway). Median and p95.
//
//   node bench/channels/email.mjs            (EMAIL_BENCH_ROUNDS=40 by default; 0.5 s apart)
//
// Needs Debian's Dovecot (apt-get install dovecot-imapd dovecot-lmtpd); skips with a notice without it.
import { performance } from "node:perf_hooks"
import { tsImport } from "tsx/esm/api"

const harness = await tsImport("../../packages/plugin-email/test/mail-server.ts", import.meta.url)
const { default: email } = await import("../../packages/plugin-email/src/channel.js")

const rounds = Number(process.env.EMAIL_BENCH_ROUNDS ?? 40)
const reason = harness.unavailable()
if (reason !== null) {
  console.log(`email: skipped (${reason})`)
  process.exit(0)
}

const server = await harness.startMailServer()
const bot = `bot1@${harness.DOMAIN}`
const owner = `owner@${harness.DOMAIN}`
const config = {
  username: bot,
  password: harness.PASSWORD,
  imapHost: "127.0.0.1",
  imapPort: server.imapPort,
  imapTls: "starttls",
  smtpHost: "127.0.0.1",
  smtpPort: server.smtpPort,
  smtpTls: "starttls",
  allowFrom: owner,
  allowSelfSigned: true,
}
const channel = email({ config, env: {} })
const controller = new AbortController()
let ready = false
/** @type {Map<string, number>} text → when receive() got it */
const received = new Map()
const context = {
  env: {},
  config,
  signal: controller.signal,
  log: (message) => {
    if (message === "email: watching the mailbox") ready = true
  },
  receive: async (message) => {
    received.set(message.text, performance.now())
    // Answer at once, as the gateway would once the model's first words are there.
    channel.send({ conversationId: message.conversationId, text: `echo: ${message.text}`, approvals: [] }, context)
  },
  answerApproval: async () => undefined,
}
const started = channel.realtime.start(context)
const until = async (check) => {
  const deadline = performance.now() + 10_000
  while (!check()) {
    if (performance.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}
await until(() => ready)

const inbound = []
const roundTrip = []
for (let round = 0; round < rounds; round += 1) {
  // Mail comes now and then, not back to back: let the channel settle into IDLE first.
  await new Promise((resolve) => setTimeout(resolve, 500))
  const text = `bench ${round} ${Date.now()}`
  const before = server.received.length
  const raw = `From: ${owner}\nSubject: bench\nMessage-ID: <bench${round}.${Date.now()}@test>\n\n${text}\n`
  const t0 = performance.now()
  await server.deliver(bot, raw)
  await until(() => server.received.length > before)
  const t1 = performance.now()
  inbound.push(received.get(text) - t0)
  roundTrip.push(t1 - t0)
}
controller.abort()
await started
await server.stop()

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { median: at(0.5).toFixed(1), p95: at(0.95).toFixed(1) }
}
const first = stats(roundTrip)
const inn = stats(inbound)
console.log(`email: mail → first outbound mail: median ${first.median} ms, p95 ${first.p95} ms (${rounds} rounds)`)
console.log(`email: mail → receive(): median ${inn.median} ms, p95 ${inn.p95} ms`)
