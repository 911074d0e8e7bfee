import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, eventually, startChatServer, textOfChunks } from "../support/chat.js"
import { request } from "../support/server.js"

/**
 * Issue 20, finding 16: 200 webhook bodies trickled in a byte at a time were all held open
 * (Node's 300 s default, no per-client cap). Public bodies now have a deadline, one client a cap
 * of open public requests, and every request header and request deadlines, while answers (a
 * chat's SSE stream) may last as long as they need.
 */

interface Raw {
  readonly socket: Socket
  /** Everything the server sent. */
  readonly received: () => string
  /** Resolves when the server closed the connection, with what it sent. */
  readonly closed: Promise<string>
}

const open = (url: string, head: string): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    let text = ""
    socket.on("data", (chunk) => {
      text += chunk.toString("utf8")
    })
    const closed = new Promise<string>((done) => socket.on("close", () => done(text)))
    socket.on("error", () => {})
    socket.once("connect", () => {
      socket.write(head)
      resolve({ socket, received: () => text, closed })
    })
    socket.once("error", reject)
  })

/** A webhook POST declaring 100 bytes of body and sending one. */
const trickle = (url: string) =>
  open(
    url,
    "POST /wh/nobody/none HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
  )

const limits = {
  headersTimeoutSeconds: 1,
  requestTimeoutSeconds: 2,
  publicBodyTimeoutSeconds: 3,
  publicMaxRequestsPerClient: 3,
}

describe("slow clients", () => {
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer(limits)
  })
  afterAll(() => server.close())

  it("a webhook body still trickling at its deadline is closed (not held for 300 s)", async () => {
    const raw = await trickle(server.url)
    // The test's own timeout (20 s) fails it if the server keeps the connection.
    await raw.closed
    expect(raw.socket.destroyed).toBe(true)
  })

  it("one client's open public requests are capped: the next one is 429 at once; others are served", async () => {
    const held = await Promise.all([trickle(server.url), trickle(server.url), trickle(server.url)])
    // Once the server is reading all three, a fourth public request is refused at once.
    const capped = { error: "too many open requests from this client" }
    const fourth = await eventually(async () => {
      const response = await request(`${server.url}/wh/nobody/none`, { body: { text: "hi" } })
      return response.status === 429 ? response : undefined
    })
    expect(fourth.body).toEqual(capped)
    const refused = await request(`${server.url}/api/auth/login`, { body: { password: "x" } })
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual(capped)
    // Routes that are not public are served meanwhile.
    expect((await request(`${server.url}/`, { headers: { accept: "application/json" } })).status).toBe(200)
    await Promise.all(held.map((raw) => raw.closed))
    // Slots come back once the trickling requests are gone.
    const after = await request(`${server.url}/api/auth/login`, { body: { password: "x" } })
    expect(after.status).not.toBe(429)
  })

  it("headers still arriving at the headers timeout get 408 and the connection closed", async () => {
    const raw = await open(server.url, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    expect(await raw.closed).toMatch(/^HTTP\/1\.1 408/)
  })

  it("an answer may stream past the request timeout: a chat's SSE stream is not cut", async () => {
    server.model.script({ text: ["one ", "two ", "three ", "four ", "five"], chunkDelayMs: 800 })
    const response = await chat(server, "Take your time")
    expect(response.status).toBe(200)
    expect(textOfChunks(chunksOf(await response.text()))).toBe("one two three four five")
  })
})

describe("slow clients: the body deadline alone", () => {
  // Node's request timeout far beyond the body deadline: only the deadline can close these.
  let server: ChatTestServer
  beforeAll(async () => {
    server = await startChatServer({ ...limits, requestTimeoutSeconds: 120, publicBodyTimeoutSeconds: 1 })
  })
  afterAll(() => server.close())

  it("a chunked login body (no Content-Length to go by) still trickling is closed at the deadline", async () => {
    const started = Date.now()
    const raw = await open(
      server.url,
      "POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
    )
    await raw.closed
    expect(raw.socket.destroyed).toBe(true)
    // Closed by the 1 s deadline, not by the 120 s request timeout (the test's own 20 s timeout).
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})
