/**
 * A fake of the WhatsApp Cloud API parts the channel uses, on loopback, following Meta's
 * documented shapes (see /work/shared/research/channels.md §4):
 * - `POST /v21.0/<phone-number-id>/messages` (Bearer token): text, interactive, template; answers
 *   `{ messaging_product, contacts, messages: [{ id: "wamid…" }] }`; errors as
 *   `{ error: { message, type, code, error_data: { details }, fbtrace_id } }`. A free-form message
 *   to a user who has not written in 24 hours is refused with code 131047, as Meta does.
 * - `GET /v21.0/<media-id>` → `{ url, mime_type, file_size, sha256, id }`, and the URL's bytes
 *   (Bearer token required).
 * - Webhook deliveries signed `X-Hub-Signature-256: sha256=<hex HMAC(app secret, body)>`, and
 *   the GET `hub.challenge` handshake.
 */
import { createHmac, randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export const PHONE_NUMBER_ID = "106540352242922"

type Failure = { readonly status: 429; readonly code: 130429 } | { readonly kind: "drop-after-send" | "500" }

export interface FakeGraph {
  readonly apiRoot: string
  readonly token: string
  readonly appSecret: string
  readonly sent: Array<Record<string, any>>
  readonly calls: Array<{ method: string; path: string }>
  failNext(failure: Failure, after?: number): void
  /** When `user` (digits) last wrote, as Meta counts the window; undefined = never. */
  setLastInbound(user: string, at: number | undefined): void
  /** A media object and its bytes; returns its id. */
  addMedia(bytes: Uint8Array, mimeType: string, declaredSize?: number): string
  /** A webhook notification carrying `messages` (and the window opens for their senders). */
  notification(
    value: { messages?: any[]; statuses?: any[]; contacts?: any[] },
    phoneNumberId?: string,
  ): Record<string, unknown>
  textMessage(from: string, body: string, id?: string): Record<string, unknown>
  /** POSTs `body` to `url`, signed as Meta signs it. */
  deliver(url: string, body: string, secret?: string): Promise<{ status: number; text: string }>
  close(): Promise<void>
}

const json = (response: ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(value))
}

const graphError = (response: ServerResponse, status: number, code: number, message: string, details: string) =>
  json(response, status, {
    error: {
      message,
      type: "OAuthException",
      code,
      error_data: { messaging_product: "whatsapp", details },
      fbtrace_id: "Afake",
    },
  })

const readBody = async (request: IncomingMessage) => {
  const parts: Buffer[] = []
  for await (const part of request) parts.push(part as Buffer)
  return Buffer.concat(parts).toString("utf8")
}

export const startFakeGraph = async (): Promise<FakeGraph> => {
  const token = "EAAG-fake-token"
  const appSecret = "fake-app-secret"
  const sent: Array<Record<string, any>> = []
  const calls: Array<{ method: string; path: string }> = []
  const failures: Array<Failure | null> = []
  const lastInbound = new Map<string, number>()
  const media = new Map<string, { bytes: Uint8Array; mimeType: string; declaredSize: number }>()
  let base = ""

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://fake")
    calls.push({ method: request.method ?? "GET", path: url.pathname })
    if (request.headers.authorization !== `Bearer ${token}`) {
      return graphError(response, 401, 190, "Invalid OAuth access token.", "")
    }
    const download = /^\/media\/([\w-]+)$/.exec(url.pathname)
    if (download !== null) {
      const item = media.get(download[1]!)
      if (item === undefined) return json(response, 404, {})
      response.writeHead(200, { "content-type": item.mimeType })
      return response.end(Buffer.from(item.bytes))
    }
    const mediaInfo = /^\/v21\.0\/(media-[\w-]+)$/.exec(url.pathname)
    if (request.method === "GET" && mediaInfo !== null) {
      const item = media.get(mediaInfo[1]!)
      if (item === undefined) return graphError(response, 400, 100, "Invalid parameter", "unknown media")
      return json(response, 200, {
        messaging_product: "whatsapp",
        url: `${base}/media/${mediaInfo[1]}`,
        mime_type: item.mimeType,
        sha256: "x",
        file_size: item.declaredSize,
        id: mediaInfo[1],
      })
    }
    if (request.method === "POST" && url.pathname === `/v21.0/${PHONE_NUMBER_ID}/messages`) {
      const message = JSON.parse(await readBody(request))
      const failure = failures.shift() ?? null
      if (failure !== null && "status" in failure) {
        return graphError(
          response,
          429,
          failure.code,
          "(#130429) Rate limit hit",
          "Cloud API message throughput has been reached.",
        )
      }
      if (failure?.kind === "500")
        return json(response, 500, { error: { message: "An unknown error occurred", code: 1 } })
      if (message.messaging_product !== "whatsapp" || typeof message.to !== "string") {
        return graphError(response, 400, 100, "Invalid parameter", "messaging_product and to are required")
      }
      const last = lastInbound.get(message.to)
      if (message.type !== "template" && (last === undefined || Date.now() - last > 24 * 3600 * 1000)) {
        return graphError(
          response,
          400,
          131047,
          "Re-engagement message",
          "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
        )
      }
      if (message.type === "text" && String(message.text?.body ?? "").length > 4096) {
        return graphError(response, 400, 100, "Invalid parameter", "text.body too long")
      }
      if (message.type === "interactive") {
        const buttons = message.interactive?.action?.buttons ?? []
        if (buttons.length > 3 || buttons.some((button: any) => String(button.reply?.title).length > 20)) {
          return graphError(
            response,
            400,
            131009,
            "Parameter value is not valid",
            "buttons: at most 3, titles at most 20",
          )
        }
      }
      const id = `wamid.${randomUUID()}`
      sent.push({ ...message, id })
      if (failure?.kind === "drop-after-send") return request.socket.destroy()
      return json(response, 200, {
        messaging_product: "whatsapp",
        contacts: [{ input: message.to, wa_id: message.to }],
        messages: [{ id }],
      })
    }
    return graphError(response, 400, 100, "Unsupported request", url.pathname)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    apiRoot: `${base}/v21.0`,
    token,
    appSecret,
    sent,
    calls,
    failNext: (failure, after = 0) => failures.push(...Array<null>(after).fill(null), failure),
    setLastInbound: (user, at) => (at === undefined ? lastInbound.delete(user) : lastInbound.set(user, at)),
    addMedia: (bytes, mimeType, declaredSize = bytes.length) => {
      const id = `media-${randomUUID().slice(0, 8)}`
      media.set(id, { bytes, mimeType, declaredSize })
      return id
    },
    notification: (value, phoneNumberId = PHONE_NUMBER_ID) => {
      const now = Date.now()
      for (const message of value.messages ?? []) lastInbound.set(String(message.from), now)
      return {
        object: "whatsapp_business_account",
        entry: [
          {
            id: "WABA-1",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
                  ...value,
                },
              },
            ],
          },
        ],
      }
    },
    textMessage: (from, body, id = `wamid.${randomUUID()}`) => ({
      from,
      id,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "text",
      text: { body },
    }),
    deliver: async (url, body, secret = appSecret) => {
      const signature = createHmac("sha256", secret).update(body).digest("hex")
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${signature}` },
        body,
      })
      return { status: response.status, text: await response.text() }
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
