import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chat, startChatServer } from "./support/chat.js"
import { request } from "./support/server.js"

interface ReceivedSpan {
  readonly name: string
  readonly traceId: string
  readonly attributes: ReadonlyArray<{ readonly key: string }>
}

/** A minimal OTLP/HTTP collector: keeps the spans of every JSON export posted to /v1/traces. */
const startCollector = async () => {
  const spans: Array<ReceivedSpan> = []
  const resources: Array<unknown> = []
  const paths: Array<string> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      paths.push(req.url ?? "")
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      for (const resourceSpans of body.resourceSpans ?? []) {
        resources.push(resourceSpans.resource)
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) spans.push(...(scopeSpans.spans ?? []))
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, spans, resources, paths, close: () => new Promise((resolve) => server.close(resolve)) }
}

describe("OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  let collector: Awaited<ReturnType<typeof startCollector>>

  beforeAll(async () => {
    collector = await startCollector()
  })
  afterAll(() => collector.close())

  it("a request span and the chat run's span reach the collector over OTLP/HTTP", async () => {
    const server = await startChatServer({ otlpEndpoint: collector.url, otelServiceName: "aide-test" })
    server.model.script({ text: "Traced." })
    const response = await chat(server, "Hello")
    await response.text()
    expect((await request(`${server.url}/api/threads?perPage=false`, { token: server.token })).status).toBe(200)
    // Closing the server flushes the exporter's last batch.
    await server.close()

    expect(collector.paths.every((path) => path === "/v1/traces")).toBe(true)
    const names = collector.spans.map((span) => span.name)
    expect(names).toContain("http.server POST")
    expect(names).toContain("http.server GET")
    expect(names).toContain("Chat.send")
    const chatSpan = collector.spans.find((span) => span.name === "Chat.send")!
    const post = collector.spans.find((span) => span.name === "http.server POST" && span.traceId === chatSpan.traceId)
    expect(post).toBeDefined()
    expect(JSON.stringify(collector.resources)).toContain("aide-test")
  })
})
