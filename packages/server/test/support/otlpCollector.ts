import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface ReceivedAttribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: string | number; readonly boolValue?: boolean }
}

export interface ReceivedSpan {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: ReadonlyArray<ReceivedAttribute>
  readonly links?: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
}

/** A span's attribute value as sent (`stringValue`, `intValue`…), undefined when absent. */
export const attributeOf = (span: ReceivedSpan, key: string): unknown => {
  const value = span.attributes.find((attribute) => attribute.key === key)?.value
  return value === undefined ? undefined : (value.stringValue ?? value.intValue ?? value.boolValue)
}

/**
 * A minimal OTLP/HTTP collector: keeps the spans of every JSON export posted to /v1/traces, and
 * each export's raw text (to search for anything that must never leave the server).
 */
export const startCollector = async () => {
  const spans: Array<ReceivedSpan> = []
  const resources: Array<unknown> = []
  const paths: Array<string> = []
  const raw: Array<string> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      paths.push(req.url ?? "")
      const text = Buffer.concat(chunks).toString("utf8")
      raw.push(text)
      const body = JSON.parse(text)
      for (const resourceSpans of body.resourceSpans ?? []) {
        resources.push(resourceSpans.resource)
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) spans.push(...(scopeSpans.spans ?? []))
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, spans, resources, paths, raw, close: () => new Promise((resolve) => server.close(resolve)) }
}
