// @ts-check
/**
 * The IMAP side: one connection to the INBOX, new mail noticed by IDLE (imapflow starts it
 * when the connection is quiet and restarts it every 5 minutes, under the 29 RFC 2177 allows)
 * and, besides, by a UID scan every `pollSeconds` — the only way on a server without IDLE, and a
 * net under an IDLE that died silently.
 *
 * Where the channel stands is kept on the server, as the keyword `$AideSeen` on every mail it has
 * handled: the plugin API has no storage of its own (ChannelContext has env, config, signal, log,
 * receive, answerApproval), and a keyword lives with the mailbox, survives a restart, moves to
 * whichever replica holds the connection, and survives a UIDVALIDITY change (the server keeps
 * flags when it renumbers). On start the cursor is the highest UID carrying the keyword (or, the
 * very first time, the mail of the last 5 minutes: older mail is not answered); mail above it
 * without the keyword is handled in UID order. In memory the channel also keeps (UIDVALIDITY, last UID) so a reconnect
 * skips the search. A server that refuses custom keywords (PERMANENTFLAGS without `\*`) gets the
 * in-memory cursor only, and the log says so.
 */
import { ImapFlow } from "imapflow"
import { simpleParser } from "mailparser"

/** @typedef {import("./settings.js").Settings} Settings */
/** @typedef {import("@aide/plugin").ChannelContext} ChannelContext */
/** @typedef {import("mailparser").ParsedMail} ParsedMail */

export const KEYWORD = "$AideSeen"
/** Mail larger than this is not downloaded whole: its headers and text part only. */
export const MAX_SOURCE_BYTES = 40 * 1024 * 1024
/** HTML past this is not converted to text by mailparser (inbound.js converts what it can). */
const PARSER = { maxHtmlLengthToParse: 2 * 1024 * 1024 }
/** The first run ever reads the mail that arrived this recently (sent while the channel was being set up). */
export const FIRST_RUN_LOOKBACK_MS = 5 * 60 * 1000
/** IDLE is broken and restarted this often (servers drop idle clients after 30 min at the least). */
const MAX_IDLE_MS = 5 * 60 * 1000

/**
 * What happened to a mail: "done" (handled or deliberately ignored: mark it), or "retry" (a
 * passing refusal, e.g. the conversation is busy: stop the scan and try again on the next).
 * @typedef {(mail: ParsedMail, note: string | null) => Promise<"done" | "retry">} MailHandler
 */

/** @typedef {{ uidValidity: bigint | null, last: number }} Cursor */

/** @returns {Cursor} */
export const makeCursor = () => ({ uidValidity: null, last: 0 })

/**
 * @param {import("imapflow").MessageStructureObject} node
 * @returns {import("imapflow").MessageStructureObject | null}
 */
const textPart = (node) => {
  /** @type {import("imapflow").MessageStructureObject[]} */
  const all = []
  const walk = (/** @type {import("imapflow").MessageStructureObject} */ part) => {
    all.push(part)
    for (const child of part.childNodes ?? []) walk(child)
  }
  walk(node)
  const inline = all.filter((part) => part.disposition !== "attachment")
  return inline.find((part) => part.type === "text/plain") ?? inline.find((part) => part.type === "text/html") ?? null
}

/**
 * A mail too large to download: its headers, and the text of its first text part (capped).
 * @param {ImapFlow} client
 * @param {number} uid
 * @param {number} size
 */
const readLarge = async (client, uid, size) => {
  const head = await client.fetchOne(String(uid), { headers: true, bodyStructure: true }, { uid: true })
  if (head === false || head.headers === undefined) throw new Error(`mail ${uid} vanished`)
  const mail = await simpleParser(head.headers)
  const part = head.bodyStructure === undefined ? null : textPart(head.bodyStructure)
  let text = ""
  if (part !== null) {
    const download = await client.download(String(uid), part.part ?? "1", { uid: true, maxBytes: 1024 * 1024 })
    if ("content" in download && download.content !== undefined) {
      /** @type {Buffer[]} */
      const chunks = []
      for await (const chunk of download.content) chunks.push(Buffer.from(chunk))
      text = Buffer.concat(chunks).toString("utf8")
      if (part.type === "text/html") text = text.replace(/<[^>]*>/g, " ").replace(/[ \t]+/g, " ")
    }
  }
  mail.text = text
  const note = `This mail is ${(size / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_SOURCE_BYTES / 1024 / 1024} MiB limit: only its text was read, and its attachments were not passed on.`
  return { mail, note }
}

/**
 * Runs the mailbox until the signal aborts (resolves) or the connection fails (rejects, and Aide
 * starts it again with backoff).
 * @param {Settings} settings
 * @param {Cursor} cursor kept by the channel across reconnects
 * @param {MailHandler} handle
 * @param {ChannelContext} context
 */
export const runMailbox = async (settings, cursor, handle, context) => {
  if (context.signal.aborted) return
  const client = new ImapFlow({
    host: settings.imap.host,
    port: settings.imap.port,
    secure: settings.imap.tls === "tls",
    ...(settings.imap.tls === "starttls" ? { doSTARTTLS: true } : {}),
    auth: { user: settings.username, pass: settings.password },
    tls: { rejectUnauthorized: !settings.allowSelfSigned },
    logger: false,
    maxIdleTime: MAX_IDLE_MS,
    // IDLE starts this long after the last command: short, or new mail waits for it.
    autoIdleDelay: 250,
    missingIdleCommand: "NOOP",
    connectionTimeout: 30_000,
  })
  /** @type {Promise<void>} */
  const closed = new Promise((resolve) => client.on("close", () => resolve()))
  // imapflow emits errors before it closes; the close ends the run.
  client.on("error", (error) =>
    context.log("email: the IMAP connection failed", { error: String(error?.message ?? error) }),
  )
  const stop = () => {
    client.logout().catch(() => client.close())
  }
  context.signal.addEventListener("abort", stop, { once: true })
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer
  try {
    await client.connect()
    const mailbox = await client.mailboxOpen("INBOX")
    const flags = mailbox.permanentFlags ?? new Set()
    const canMark = flags.has("\\*") || flags.has(KEYWORD)
    if (!canMark)
      context.log("email: the server refuses custom keywords; where the channel stands is kept in memory only")
    if (cursor.uidValidity !== mailbox.uidValidity) {
      const marked = canMark ? await client.search({ keyword: KEYWORD }, { uid: true }) : false
      const highest = Array.isArray(marked) && marked.length > 0 ? Math.max(...marked) : null
      cursor.last = highest ?? (await firstRunStart(client, mailbox.uidNext))
      cursor.uidValidity = mailbox.uidValidity
    }

    const scanOnce = async () => {
      const found = await client.search({ uid: `${cursor.last + 1}:*` }, { uid: true })
      // `n:*` always names the highest message, even below n: keep only what is new.
      const uids = (Array.isArray(found) ? found : []).filter((uid) => uid > cursor.last).sort((a, b) => a - b)
      for (const uid of uids) {
        if (context.signal.aborted) return
        const meta = await client.fetchOne(String(uid), { flags: true, size: true }, { uid: true })
        if (meta === false) continue
        if (meta.flags?.has(KEYWORD) !== true) {
          const size = meta.size ?? 0
          const { mail, note } =
            size > MAX_SOURCE_BYTES
              ? await readLarge(client, uid, size)
              : { mail: await simpleParser(await sourceOf(client, uid), PARSER), note: null }
          if (canMark && (await handledBefore(client, uid, mail.messageId))) {
            context.log("email: a mail delivered again was not read twice", { uid })
          } else if ((await handle(mail, note)) === "retry") return
          if (canMark) await client.messageFlagsAdd(String(uid), [KEYWORD], { uid: true })
        }
        cursor.last = uid
      }
    }
    // Scans never overlap: IDLE's "exists" and the timer only ask for one more.
    /** @type {Promise<void> | null} */
    let running = null
    let again = false
    const scan = () => {
      if (running !== null) {
        again = true
        return running
      }
      running = (async () => {
        try {
          do {
            again = false
            await scanOnce()
          } while (again && !context.signal.aborted)
        } catch (error) {
          // A failed command means a broken connection: close it, and the run ends.
          context.log("email: reading the mailbox failed", { error: String(error) })
          client.close()
        } finally {
          running = null
        }
      })()
      return running
    }
    client.on("exists", () => {
      scan()
    })
    timer = setInterval(() => {
      scan()
    }, settings.pollMs)
    await scan()
    context.log("email: watching the mailbox", {
      idle: client.capabilities.has("IDLE"),
      pollSeconds: settings.pollMs / 1000,
    })
    await closed
  } finally {
    clearInterval(timer)
    context.signal.removeEventListener("abort", stop)
    if (client.usable) client.close()
  }
  if (!context.signal.aborted) throw new Error("email: the IMAP connection closed")
}

/**
 * Where the very first run starts: after the mail older than FIRST_RUN_LOOKBACK_MS (by the
 * server's arrival date), so old mail is never answered but what the owner sent while enabling
 * the channel is.
 * @param {ImapFlow} client
 * @param {number} uidNext
 */
const firstRunStart = async (client, uidNext) => {
  const since = Date.now() - FIRST_RUN_LOOKBACK_MS
  // SINCE has a day's grain: it bounds what is fetched; the arrival time decides.
  const recent = await client.search({ since: new Date(since - 86_400_000) }, { uid: true })
  let start = Math.max(uidNext - 1, 0)
  if (!Array.isArray(recent) || recent.length === 0) return start
  for await (const message of client.fetch(recent.slice(-1000), { internalDate: true }, { uid: true })) {
    const arrived = message.internalDate === undefined ? 0 : new Date(message.internalDate).getTime()
    if (arrived >= since) start = Math.min(start, message.uid - 1)
  }
  return start
}

/**
 * Whether another mail of the mailbox with this Message-ID was handled already: a mail delivered
 * twice (a sending server's retry after a lost "250", a copy filed twice) is answered once, and
 * the server's keywords make that hold across restarts too.
 * @param {ImapFlow} client
 * @param {number} uid
 * @param {string | undefined} messageId
 */
const handledBefore = async (client, uid, messageId) => {
  if (messageId === undefined || messageId.length > 998) return false
  const found = await client.search({ keyword: KEYWORD, header: { "message-id": messageId } }, { uid: true })
  return Array.isArray(found) && found.some((other) => other !== uid)
}

/**
 * @param {ImapFlow} client
 * @param {number} uid
 */
const sourceOf = async (client, uid) => {
  const message = await client.fetchOne(String(uid), { source: true }, { uid: true })
  if (message === false || message.source === undefined) throw new Error(`mail ${uid} vanished`)
  return message.source
}
