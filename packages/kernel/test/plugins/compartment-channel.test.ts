import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { testKernel } from "@aide/testing/effect"
import { Effect, HashMap, Layer, Logger, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type WebSocket, WebSocketServer } from "ws"
import { AppConfig } from "../../src/config/AppConfig.js"
import { PluginLoader } from "../../src/plugins/loader/PluginLoader.js"
import { eventually } from "./sandbox-support.js"

/**
 * A channel declared `sandbox: "compartment"` runs in SES, loaded by the kernel as the owner
 * enables it, and reaches its platform only through its context: its realtime WebSocket to the
 * owner's configured host (`config:url`) works end to end, one to a host it did not declare is
 * refused, and disabling the plugin closes the socket in the host.
 */

// No import and no timer: what a compartment allows. It says where it runs in its first message.
const channel = `export default {
  id: "live",
  name: "Live",
  realtime: {
    start: (context) =>
      new Promise((resolve) => {
        const socket = context.webSocket(context.config.url, { headers: { authorization: "Bearer " + context.config.label } })
        socket.onopen = () => socket.send("hello from " + context.config.label + ", process is " + typeof globalThis.process)
        socket.onerror = (event) => context.log("socket error: " + event.message)
        socket.onclose = () => resolve()
      }),
  },
}`

const manifest = (id: string, network: ReadonlyArray<string>) => ({
  manifestVersion: 1,
  id,
  name: id,
  configFields: [
    { key: "url", label: "URL", type: "text" },
    { key: "label", label: "Label", type: "text" },
  ],
  provides: { channels: [{ entry: "channel.js", sandbox: "compartment", permissions: { network } }] },
})

let wss: WebSocketServer
let url: string
const connections: Array<{ auth: string | undefined; got: Array<string>; closed: boolean }> = []
const lines: Array<{ message: string; plugin: unknown }> = []
let runtime: ManagedRuntime.ManagedRuntime<PluginLoader | AppConfig, unknown>
let dataDir: string
const cleanup: Array<() => void> = []

beforeAll(async () => {
  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 })
  await new Promise<void>((resolve) => wss.once("listening", resolve))
  url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/socket`
  wss.on("connection", (socket: WebSocket, request) => {
    const seen = { auth: request.headers.authorization, got: [] as Array<string>, closed: false }
    connections.push(seen)
    socket.on("message", (data: Buffer) => seen.got.push(data.toString()))
    socket.on("close", () => {
      seen.closed = true
    })
  })
  dataDir = mkdtempSync(path.join(tmpdir(), "aide-compartment-channel-"))
  const root = mkdtempSync(path.join(tmpdir(), "aide-compartment-channel-plugins-"))
  cleanup.push(
    () => rmSync(dataDir, { recursive: true, force: true }),
    () => rmSync(root, { recursive: true, force: true }),
  )
  // `live` declares the owner's URL setting; `stray` declares another host only.
  for (const [id, network] of [
    ["live", ["config:url"]],
    ["stray", ["chat.example.com"]],
  ] as const) {
    mkdirSync(path.join(root, id))
    writeFileSync(path.join(root, id, "aide.plugin.json"), JSON.stringify(manifest(id, network)))
    writeFileSync(path.join(root, id, "channel.js"), channel)
  }
  const logger = Logger.make<unknown, void>(({ message, annotations }) => {
    lines.push({
      message: String(Array.isArray(message) ? message[0] : message),
      plugin: HashMap.get(annotations, "plugin").pipe((found) => (found._tag === "Some" ? found.value : undefined)),
    })
  })
  const kernel = testKernel({
    dataDir,
    plugins: { paths: [root] },
    // The test's server is on loopback over ws:, which an operator would have to allow.
    pluginLoader: { egress: { allowHttp: true, allowedKinds: ["loopback"] } },
  }) as Layer.Layer<PluginLoader | AppConfig, unknown>
  runtime = ManagedRuntime.make(kernel.pipe(Layer.provide(Logger.add(logger))))
})

afterAll(async () => {
  await runtime?.dispose()
  for (const client of wss.clients) client.terminate()
  await new Promise<void>((resolve) => wss.close(() => resolve()))
  for (const step of cleanup.reverse()) step()
})

const configure = (id: string, values: Record<string, unknown>) =>
  runtime.runPromise(Effect.flatMap(AppConfig, (config) => config.patch({ plugins: { [id]: values } })))

describe("a channel in the compartment sandbox", () => {
  it("holds its realtime WebSocket to the owner's configured host, contained, until the plugin is disabled", async () => {
    await configure("live", { enabled: true, url, label: "live" })
    await eventually(async () => connections.some((seen) => seen.got.length > 0), 20_000)
    const seen = connections.find((one) => one.got.length > 0)
    expect(seen).toMatchObject({ auth: "Bearer live", got: ["hello from live, process is undefined"], closed: false })
    // Its module was precompiled like a sandboxed tool's.
    expect(readdirSync(path.join(dataDir, "cache", "plugin-modules"))).toContain("live")

    await configure("live", { enabled: false })
    await eventually(async () => seen?.closed === true)
  })

  it("is refused a host it did not declare", async () => {
    await configure("stray", { enabled: true, url, label: "stray" })
    await eventually(async () =>
      lines.some((line) => line.plugin === "stray" && line.message.startsWith("socket error")),
    )
    expect(lines.find((line) => line.plugin === "stray" && line.message.startsWith("socket error"))?.message).toBe(
      `socket error: webSocket refused: host ${new URL(url).host} is not declared`,
    )
    expect(connections.every((seen) => !seen.got.some((text) => text.includes("stray")))).toBe(true)
    await configure("stray", { enabled: false })
  })
})
