import { request as httpRequest } from "node:http"

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
  readonly json: any
}

/**
 * One request through node:http, which (unlike fetch) sends any `Host`, `Origin` or
 * `Sec-Fetch-*` header as given, and gives up after `timeoutMs` so a request the server never
 * answers fails the test instead of hanging it.
 */
export const raw = (
  url: string,
  init: {
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly timeoutMs?: number
  } = {},
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const headers: Record<string, string> = { ...init.headers }
    if (init.body !== undefined) {
      headers["content-type"] ??= "application/json"
      headers["content-length"] = String(Buffer.byteLength(init.body))
    }
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        // The path exactly as written: `%00` must reach the server, not be normalised away.
        path: url.slice(target.origin.length) || "/",
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers,
        signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", reject)
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json })
        })
      },
    )
    outgoing.on("error", reject)
    outgoing.end(init.body)
  })
