// What a brokered WebSocket costs a channel (docs/plugin-sandbox.md, "Channels' network"): N
// echo round trips (send, wait for the echo) over `context.webSocket` in a plugin process of
// each trust, against the same round trips from a `ws` client in this process (no broker).
// Reports the mean round trip (the whole run's wall time over N: a compartment has no
// high-resolution clock) and the host's CPU per round trip.
//
//   npx tsx bench/channel-sockets.ts    # env MESSAGES [2000], SIZE [200] bytes
import { mkdtempSync, writeFileSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
// @ts-expect-error the kernel's own copy (the root installs no effect)
import { Effect, Exit, Scope } from "../packages/kernel/node_modules/effect/dist/esm/index.js"
// @ts-expect-error the kernel's own copy
import { WebSocket, WebSocketServer } from "../packages/kernel/node_modules/ws/wrapper.mjs"
import * as PluginProcess from "../packages/kernel/src/plugins/sandbox/PluginProcess.js"

const messages = Number(process.env.MESSAGES ?? 2_000)
const size = Number(process.env.SIZE ?? 200)

const channel = `
export default {
  id: "bench", name: "bench",
  webhook: { verify: { kind: "token", header: "x", secret: { config: "t" } }, handle: (request, context) => new Promise((resolve) => {
    const { url, n, size } = JSON.parse(request.body)
    let echoes = 0
    const payload = "x".repeat(size)
    const socket = context.webSocket(url)
    socket.onopen = () => socket.send(payload)
    socket.onmessage = () => { echoes += 1; if (echoes < n) socket.send(payload); else socket.close() }
    socket.onclose = () => resolve({ status: 200, body: String(echoes) })
  }) },
}`

const mean = (ms: number, n: number) => `${((ms / n) * 1000).toFixed(0)} µs per round trip`

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 })
await new Promise((resolve) => wss.once("listening", resolve))
wss.on("connection", (socket: WebSocket) => socket.on("message", (data: Buffer) => socket.send(data.toString())))
const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`

const startedAt = performance.now()
await new Promise<void>((resolve) => {
  let echoes = 0
  const socket = new WebSocket(url)
  const payload = "x".repeat(size)
  socket.on("open", () => socket.send(payload))
  socket.on("message", () => {
    echoes += 1
    if (echoes < messages) socket.send(payload)
    else socket.close()
  })
  socket.on("close", () => resolve())
})
console.log(`direct ws client in the host: ${mean(performance.now() - startedAt, messages)}`)

const directory = mkdtempSync(join(tmpdir(), "aide-bench-sockets-"))
writeFileSync(join(directory, "channel.mjs"), channel)
for (const trust of ["host", "compartment"] as const) {
  const scope = Effect.runSync(Scope.make())
  const plugin: PluginProcess.PluginProcess = await Effect.runPromise(
    PluginProcess.start({
      pluginId: "bench",
      directory,
      trust,
      entries: { tools: [], agents: [], channels: ["channel.mjs"] },
      permissions: { network: ["127.0.0.1"] },
      env: {},
      config: {},
      egress: { allowHttp: true, allowedKinds: ["loopback"] },
    }).pipe(Scope.extend(scope)),
  )
  const cpu = process.cpuUsage()
  const began = performance.now()
  const request = { method: "POST", headers: {}, body: JSON.stringify({ url, n: messages, size }) }
  const answer = (await Effect.runPromise(
    plugin.request("channel.webhook", { channelId: "bench", request }, { timeoutMs: 120_000 }),
  )) as { body: string }
  const wall = performance.now() - began
  const used = process.cpuUsage(cpu)
  const echoes = Number(answer.body)
  const perMessage = ((used.user + used.system) / echoes).toFixed(0)
  console.log(`${trust} channel through the broker: ${mean(wall, echoes)}; host CPU ${perMessage} µs per round trip`)
  await Effect.runPromise(Scope.close(scope, Exit.void))
}
wss.close()
