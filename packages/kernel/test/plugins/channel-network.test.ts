import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Tls from "node:tls"
import { Effect, Either, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type WebSocket, WebSocketServer } from "ws"
import * as PluginProcess from "../../src/plugins/sandbox/PluginProcess.js"
import { closeAll, eventually, fixture, startPlugin } from "./sandbox-support.js"

/**
 * A channel's brokered network (docs/plugin-sandbox.md, "Channels' network"), for both trusts:
 * real loopback servers (a WebSocket server, a line-echo TCP server that can STARTTLS, a TLS
 * server with a certificate made for the run), reached through declared names that the test's
 * resolver maps to 127.0.0.1, as an operator's allowance of loopback lets them.
 */

let cert: string
let key: string
const servers: Array<{ close: (done: () => void) => void }> = []
let wss: WebSocketServer
let wsPort: number
let tcpPort: number
let tlsPort: number
let httpPort: number
/** Every WebSocket the server accepted: its path, headers, what it got, whether it closed. */
const accepted: Array<{ path: string; headers: Http.IncomingHttpHeaders; got: Array<string>; closed: boolean }> = []

/** Greets, then answers each line with `ECHO <line>`; `STARTTLS` upgrades (when `upgrade`). */
const lineServer = (socket: Net.Socket, greeting: string, upgrade: boolean) => {
  let buffer = ""
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString("utf8")
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at)
      buffer = buffer.slice(at + 1)
      if (line === "STARTTLS" && upgrade) {
        socket.off("data", onData)
        socket.write("READY\n", () => {
          const secure = new Tls.TLSSocket(socket, { isServer: true, cert, key })
          lineServer(secure, "", false)
        })
        return
      }
      socket.write(`ECHO ${line}\n`)
    }
  }
  socket.on("data", onData)
  socket.on("error", () => undefined)
  if (greeting !== "") socket.write(greeting)
}

const listen = async (server: Net.Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  servers.push(server)
  return (server.address() as AddressInfo).port
}

beforeAll(async () => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "channel-net-"))
  ChildProcess.execFileSync("openssl", [
    ...["req", "-x509", "-nodes", "-days", "1", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"],
    ...["-keyout", Path.join(dir, "key.pem"), "-out", Path.join(dir, "cert.pem")],
    ...["-subj", "/CN=a.example.com", "-addext", "subjectAltName=DNS:a.example.com,DNS:tcp.example.com"],
  ])
  cert = Fs.readFileSync(Path.join(dir, "cert.pem"), "utf8")
  key = Fs.readFileSync(Path.join(dir, "key.pem"), "utf8")
  Fs.rmSync(dir, { recursive: true })

  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 })
  await new Promise<void>((resolve) => wss.once("listening", resolve))
  wsPort = (wss.address() as AddressInfo).port
  wss.on("connection", (socket: WebSocket, request) => {
    const seen = { path: request.url ?? "", headers: request.headers, got: [] as Array<string>, closed: false }
    accepted.push(seen)
    socket.on("close", () => {
      seen.closed = true
    })
    if (seen.path === "/big") return socket.send("x".repeat(5_000))
    if (seen.path === "/auth") return socket.send(`auth ${request.headers.authorization}`)
    socket.on("message", (data: Buffer, binary: boolean) => {
      seen.got.push(data.toString())
      socket.send(binary ? data : `echo ${data}`, { binary })
    })
  })
  tcpPort = await listen(Net.createServer((socket) => lineServer(socket, "HELLO\n", true)))
  tlsPort = await listen(Tls.createServer({ cert, key }, (socket) => lineServer(socket, "TLS HELLO\n", false)))
  const http = Http.createServer((_, response) => response.end("from the api"))
  httpPort = await listen(http)
})

afterAll(async () => {
  await closeAll()
  for (const client of wss.clients) client.terminate()
  await new Promise<void>((resolve) => wss.close(() => resolve()))
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))))
})

const lookup = async (host: string) => (host === "private.example.com" ? ["10.0.0.1"] : ["127.0.0.1"])

const options = (trust: "host" | "compartment") => ({
  pluginId: "network",
  trust,
  entries: { tools: [], agents: [], channels: ["channel.mjs"] },
  permissions: {
    time: true,
    network: [
      "a.example.com",
      "private.example.com",
      `tcp.example.com:${tcpPort}`,
      `a.example.com:${tlsPort}`,
      "config:apiRoot",
    ],
  },
  config: { apiRoot: `http://127.0.0.1:${httpPort}`, wsUrl: `ws://a.example.com:${wsPort}/hold` },
  egress: { allowHttp: true, allowedKinds: ["loopback" as const], lookup },
  tlsCa: cert,
  limits: { sockets: { maxMessageBytes: 4_096, opens: { inFlight: 4, perSecond: 100, burst: 100 } } },
})

const run = async (plugin: PluginProcess.PluginProcess, op: Record<string, unknown>) => {
  const request = { method: "POST", headers: {}, body: JSON.stringify(op) }
  const answer = await Effect.runPromise(plugin.request("channel.webhook", { channelId: "net", request }))
  return JSON.parse((answer as { body: string }).body) as Record<string, unknown>
}

describe.each(["host", "compartment"] as const)("a %s channel's network", (trust) => {
  let plugin: PluginProcess.PluginProcess
  beforeAll(async () => {
    plugin = await startPlugin(options(trust))
  })

  it("opens a WebSocket to a declared host: handshake headers, subprotocol, text and binary both ways", async () => {
    const url = `ws://a.example.com:${wsPort}/echo`
    const result = await run(plugin, { op: "ws", url, protocols: ["chat.v1"], send: "hi", binary: "bytes", count: 2 })
    expect(result).toEqual({
      messages: ["echo hi", "binary:bytes"],
      errors: [],
      protocol: "chat.v1",
      openState: 1,
      close: { code: 1000, reason: "done" },
      state: 3,
    })
    const auth = await run(plugin, {
      op: "ws",
      url: `ws://a.example.com:${wsPort}/auth`,
      headers: { Authorization: "Bearer t" },
    })
    expect(auth.messages).toEqual(["auth Bearer t"])
    // The name, not the pinned address, is what the server was asked for.
    expect(accepted.find((seen) => seen.path === "/auth")?.headers.host).toBe(`a.example.com:${wsPort}`)
  })

  it("refuses an undeclared host, a private address and the handshake's own headers", async () => {
    const undeclared = await run(plugin, { op: "ws", url: `ws://b.example.com:${wsPort}/` })
    expect(undeclared).toMatchObject({ errors: [`webSocket refused: host b.example.com:${wsPort} is not declared`] })
    expect(undeclared.close).toEqual({ code: 1006, reason: "" })
    const privateOne = await run(plugin, { op: "ws", url: `ws://private.example.com:${wsPort}/` })
    expect(privateOne.errors).toEqual([
      `connection to private.example.com:${wsPort} refused: private address (private.example.com resolves to 10.0.0.1) is not allowed`,
    ])
    const forged = await run(plugin, { op: "ws", url: `ws://a.example.com:${wsPort}/`, headers: { Upgrade: "h2c" } })
    expect(forged.errors).toEqual(["webSocket refused: the header upgrade is set by the handshake"])
  })

  it("bounds a message each way: a larger one is refused on send and closes the socket (1009) on receipt", async () => {
    const big = await run(plugin, { op: "ws", url: `ws://a.example.com:${wsPort}/big` })
    expect(big).toMatchObject({ messages: [], close: { code: 1006 } })
    expect(big.errors).toEqual([expect.stringMatching(/Max payload size exceeded/)])
    const url = `ws://a.example.com:${wsPort}/echo`
    const sent = await run(plugin, { op: "ws", url, send: "y".repeat(5_000) })
    expect(sent.errors).toEqual(["send refused: 5000 bytes is more than one message may hold (4096)"])
  })

  it("connects TCP to a declared host:port, upgrades with STARTTLS, and refuses other ports", async () => {
    const plain = await run(plugin, {
      op: "tcp",
      host: "tcp.example.com",
      port: tcpPort,
      greeting: "HELLO\n",
      lines: ["one"],
      until: "ECHO one\n",
    })
    expect(plain).toEqual({ received: "HELLO\nECHO one\n", end: {} })
    const upgraded = await run(plugin, {
      op: "tcp",
      ...{
        host: "tcp.example.com",
        port: tcpPort,
        greeting: "HELLO\n",
        startTls: true,
        lines: ["two"],
        until: "ECHO two\n",
      },
    })
    expect(upgraded).toEqual({ received: "ECHO two\n", end: {} })
    const tls = await run(plugin, {
      op: "tcp",
      host: "a.example.com",
      port: tlsPort,
      tls: true,
      greeting: "TLS HELLO\n",
      lines: ["x"],
      until: "ECHO x\n",
    })
    expect(tls.received).toBe("TLS HELLO\nECHO x\n")
    // Declared without a port: fetch and webSocket only.
    expect(await run(plugin, { op: "tcp", host: "a.example.com", port: tcpPort })).toEqual({
      thrown: `connect refused: a.example.com:${tcpPort} is not declared`,
    })
  })

  it("has timers with the time grant", async () => {
    expect(await run(plugin, { op: "timer" })).toEqual({ handle: true, order: ["timeout"], decoded: "hi" })
  })

  it("fetches from the host of a config: entry (the owner's setting)", async () => {
    expect(await run(plugin, { op: "fetch", url: `http://127.0.0.1:${httpPort}/x` })).toEqual({
      status: 200,
      text: "from the api",
    })
    expect(await run(plugin, { op: "fetch", url: `http://127.0.0.1:${tcpPort}/x` })).toEqual({
      thrown: "fetch refused: that port of the host is not declared",
    })
  })

  it("closes a channel's sockets when it stops, and all of them when the plugin stops", async () => {
    const held = () => accepted.filter((seen) => seen.path === "/hold" && seen.got.includes("realtime"))
    const before = held().length
    const controller = new AbortController()
    const started = Effect.runPromise(
      Effect.either(
        plugin.request("channel.start", { channelId: "net" }, { timeoutMs: null, signal: controller.signal }),
      ),
    )
    await eventually(async () => held().length === before + 1)
    controller.abort()
    await eventually(async () => held()[before]?.closed === true)
    expect(Either.isLeft(await started)).toBe(true)

    // A process of its own, stopped as disabling the plugin stops it: its scope closes.
    const scope = Effect.runSync(Scope.make())
    const other = await Effect.runPromise(
      PluginProcess.start({ ...options(trust), directory: fixture("network"), env: {} }).pipe(Scope.extend(scope)),
    )
    void Effect.runPromise(Effect.either(other.request("channel.start", { channelId: "net" }, { timeoutMs: null })))
    await eventually(async () => held().length === before + 2)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await eventually(async () => held()[before + 1]?.closed === true)
  })

  it("closes a process's sockets when it dies", async () => {
    const held = () => accepted.filter((seen) => seen.path === "/hold" && seen.got.includes("realtime"))
    const before = held().length
    void Effect.runPromise(Effect.either(plugin.request("channel.start", { channelId: "net" }, { timeoutMs: null })))
    await eventually(async () => held().length === before + 1)
    process.kill((await Effect.runPromise(plugin.pid)) as number, "SIGKILL")
    await eventually(async () => held()[before]?.closed === true)
  })
})

describe("a channel's sockets, bounded", () => {
  it("refuses a socket past the open cap, and openings past the rate", async () => {
    const plugin = await startPlugin({
      ...options("host"),
      limits: { sockets: { open: 2, opens: { inFlight: 8, perSecond: 1, burst: 4 } } },
    })
    const url = `ws://a.example.com:${wsPort}/echo`
    expect((await run(plugin, { op: "wsMany", url, count: 3 })).ends).toEqual([
      "open",
      "open",
      "webSocket refused: more than 2 sockets open",
    ])
    // The three above took three of the four tokens; the second of these two finds none.
    expect((await run(plugin, { op: "wsMany", url, count: 2 })).ends).toEqual([
      "open",
      "socket refused: rate limited (1 socket openings a second, bursts of 4); try again later",
    ])
  })
})

describe("a channel's network without a declaration", () => {
  it("refuses fetch, webSocket and connect", async () => {
    const plugin = await startPlugin({ ...options("host"), permissions: {} })
    expect(await run(plugin, { op: "fetch", url: `http://127.0.0.1:${httpPort}/` })).toEqual({
      thrown: "fetch refused: the plugin declares no network permission",
    })
    expect(await run(plugin, { op: "ws", url: `ws://a.example.com:${wsPort}/echo` })).toMatchObject({
      errors: ["webSocket refused: the plugin declares no network permission"],
    })
    expect(await run(plugin, { op: "tcp", host: "tcp.example.com", port: tcpPort })).toEqual({
      thrown: "connect refused: the plugin declares no network permission",
    })
  })
})
