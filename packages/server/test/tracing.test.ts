import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chat, startChatServer } from "./support/chat.js"
import { startCollector } from "./support/otlpCollector.js"
import { request } from "./support/server.js"

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
