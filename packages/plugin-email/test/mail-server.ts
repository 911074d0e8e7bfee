/**
 * A real mail server for the tests, on loopback, in a temporary folder:
 * - Debian's Dovecot (IMAP with IDLE and STARTTLS, a self-signed certificate, passwd-file users,
 *   maildirs in the folder, LMTP for delivery), started in the foreground with its own config;
 * - the assistant's SMTP server: `smtp-server` (nodemailer's project) with STARTTLS and AUTH,
 *   which keeps each message it accepts and delivers it on to Dovecot by LMTP.
 *
 * Why not Postfix: a private Postfix instance needs root-owned queue folders, its master and a
 * set-gid postdrop, starts in seconds, and retries on its own schedule; the test needs the SMTP
 * side to show what it received at once and to fail a DATA on purpose (to check that a retried
 * send is the same message), which smtp-server does in a few lines. Delivery into the mailbox is
 * still Dovecot's own (LMTP), so what the channel reads by IMAP went through a real mail store.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import nodemailer from "nodemailer"
import { SMTPServer } from "smtp-server"

export const PASSWORD = "secret-pass"
/** The IMAP server at this address advertises no IDLE (Linux routes all of 127/8 to loopback). */
export const NO_IDLE_HOST = "127.0.0.2"
export const DOMAIN = "test"

/** Why the mail server cannot run here, or null (the tests skip with this reason). */
export const unavailable = (): string | null => {
  for (const bin of ["/usr/sbin/dovecot", "/usr/bin/openssl"]) {
    if (!existsSync(bin)) return `${bin} is not installed (apt-get install dovecot-imapd dovecot-lmtpd openssl)`
  }
  if (!existsSync("/usr/lib/dovecot/lmtp")) return "dovecot-lmtpd is not installed"
  return null
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const waitForPort = async (port: number, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

export interface Received {
  readonly raw: string
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly secure: boolean
}

export interface MailServer {
  readonly imapPort: number
  readonly smtpPort: number
  /** The mailboxes: `bot<n>@test` (n = 1…20), `owner@test` and `user<n>@test` (n = 0…3). */
  readonly received: Array<Received>
  /** Delivers a raw message (CRLF or LF) into a mailbox, through Dovecot's LMTP ("" = a bounce's null sender). */
  deliver(to: string, raw: string, envelopeFrom?: string): Promise<void>
  /** Fails the next `count` SMTP DATA commands with a 451, after keeping the message. */
  failNextData(count: number): void
  /** A TCP proxy to the IMAP port whose connections can be cut. */
  imapProxy(): Promise<{ port: number; cut(): void; close(): Promise<void> }>
  /** The files in a mailbox's maildir (new and cur). */
  maildir(user: string): Array<string>
  log(): string
  stop(): Promise<void>
}

export const startMailServer = async (): Promise<MailServer> => {
  const root = mkdtempSync(join(tmpdir(), "aide-mail-"))
  chmodSync(root, 0o755)
  const asRoot = process.getuid?.() === 0
  const me = userInfo()
  const mailUser = asRoot ? "dovecot" : me.username
  const uid = asRoot ? Number(execFileSync("id", ["-u", "dovecot"]).toString().trim()) : me.uid
  const gid = asRoot ? Number(execFileSync("id", ["-g", "dovecot"]).toString().trim()) : me.gid
  const cert = join(root, "cert.pem")
  const key = join(root, "key.pem")
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-subj",
      "/CN=localhost",
      "-days",
      "2",
    ],
    { stdio: "ignore" },
  )
  chmodSync(key, 0o644)
  const users = [
    ...Array.from({ length: 20 }, (_, index) => `bot${index + 1}`),
    "owner",
    ...Array.from({ length: 4 }, (_, index) => `user${index}`),
  ]
  const lines = users.map((user) => {
    const home = join(root, "home", user)
    mkdirSync(home, { recursive: true })
    if (asRoot) chownSync(home, uid, gid)
    return `${user}@${DOMAIN}:{PLAIN}${PASSWORD}:${uid}:${gid}::${home}::`
  })
  writeFileSync(join(root, "users"), `${lines.join("\n")}\n`)
  const [imapPort, lmtpPort, smtpPort] = [await freePort(), await freePort(), await freePort()]
  const config = join(root, "dovecot.conf")
  writeFileSync(
    config,
    `protocols = imap lmtp
listen = 127.0.0.1, ${NO_IDLE_HOST}
base_dir = ${root}/run
state_dir = ${root}/state
log_path = ${root}/dovecot.log
ssl = yes
ssl_cert = <${cert}
ssl_key = <${key}
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
default_login_user = ${asRoot ? "dovenull" : me.username}
default_internal_user = ${mailUser}
default_internal_group = ${asRoot ? "dovecot" : mailUser}
first_valid_uid = 1
postmaster_address = postmaster@${DOMAIN}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${root}/users
}
userdb {
  driver = passwd-file
  args = username_format=%u ${root}/users
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1, ${NO_IDLE_HOST}
    port = ${imapPort}
  }
  inet_listener imaps {
    port = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = ${lmtpPort}
  }
}
# The same server seen at another loopback address advertises no IDLE (login and IMAP alike).
local ${NO_IDLE_HOST} {
  protocol imap {
    imap_capability = IMAP4rev1 LITERAL+ UIDPLUS
  }
}
`,
  )
  const dovecot: ChildProcess = spawn("/usr/sbin/dovecot", ["-c", config, "-F"], { stdio: "ignore" })
  await Promise.all([waitForPort(imapPort), waitForPort(lmtpPort)])

  const lmtp = nodemailer.createTransport({ host: "127.0.0.1", port: lmtpPort, lmtp: true, ignoreTLS: true })
  const received: Array<Received> = []
  let failures = 0
  const smtp = new SMTPServer({
    key: readFileSync(key),
    cert: readFileSync(cert),
    authMethods: ["PLAIN", "LOGIN"],
    // Credentials only over TLS, as a real submission server asks.
    allowInsecureAuth: false,
    logger: false,
    // A client still connected when the test ends is cut after this long.
    closeTimeout: 1000,
    onAuth(auth, _session, callback) {
      if (auth.username?.startsWith("bot") && auth.password === PASSWORD) callback(null, { user: auth.username })
      else callback(new Error("Invalid username or password"))
    },
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address)
        const from = session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address
        received.push({ raw, from, to, secure: session.secure })
        if (failures > 0) {
          failures -= 1
          const error = Object.assign(new Error("Temporary failure, try again"), { responseCode: 451 })
          callback(error)
          return
        }
        lmtp
          .sendMail({ envelope: { from, to }, raw })
          .then(() => callback())
          .catch((error: Error) => callback(error))
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(smtpPort, "127.0.0.1", () => resolve()))

  const proxies: Array<Server> = []
  return {
    imapPort,
    smtpPort,
    received,
    deliver: async (to, raw, envelopeFrom = "sender@example.org") => {
      await lmtp.sendMail({ envelope: { from: envelopeFrom, to: [to] }, raw: raw.replace(/\r?\n/g, "\r\n") })
    },
    failNextData: (count) => {
      failures = count
    },
    imapProxy: async () => {
      const sockets = new Set<Socket>()
      const server = createServer((client) => {
        const upstream = tcpConnect(imapPort, "127.0.0.1")
        sockets.add(client).add(upstream)
        client.pipe(upstream).pipe(client)
        const end = () => {
          client.destroy()
          upstream.destroy()
        }
        client.on("error", end).on("close", end)
        upstream.on("error", end).on("close", end)
      })
      proxies.push(server)
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
      const address = server.address()
      return {
        port: typeof address === "object" && address !== null ? address.port : 0,
        cut: () => {
          for (const socket of sockets) socket.destroy()
          sockets.clear()
        },
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      }
    },
    maildir: (user) => {
      const base = join(root, "home", user, "Maildir")
      return ["new", "cur"].flatMap((folder) => {
        const path = join(base, folder)
        return existsSync(path) ? readdirSync(path) : []
      })
    },
    log: () => (existsSync(join(root, "dovecot.log")) ? readFileSync(join(root, "dovecot.log"), "utf8") : ""),
    stop: async () => {
      for (const proxy of proxies) proxy.close()
      lmtp.close()
      await new Promise<void>((resolve) => smtp.close(() => resolve()))
      dovecot.kill("SIGTERM")
      await new Promise((resolve) => (dovecot.exitCode === null ? dovecot.once("exit", resolve) : resolve(null)))
      rmSync(root, { recursive: true, force: true })
    },
  }
}
