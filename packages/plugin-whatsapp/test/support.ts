import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { RateLimiter, WebhookReplays } from "@aide/kernel"
import { ChannelWebhooks } from "@aide/kernel/internal"
import type { ChannelContext, ChannelDefinition, InboundMessage } from "@aide/plugin"
import { Duration, Effect } from "effect"

export type Received = InboundMessage & { readonly group?: boolean; readonly mentioned?: boolean }

/** A channel context as Aide gives it, with the brokered fetch backed by Node's. */
export const makeContext = (config: Record<string, unknown>) => {
  const received: Array<Received> = []
  const answers: Array<{ conversationId: string; approvalId: string; approved: boolean }> = []
  const logs: Array<{ message: string; data?: unknown }> = []
  const controller = new AbortController()
  const context = {
    env: {},
    config,
    signal: controller.signal,
    log: (message: string, data?: unknown) => logs.push({ message, data }),
    receive: async (message: InboundMessage) => {
      received.push(message)
    },
    answerApproval: async (answer: { conversationId: string; approvalId: string; approved: boolean }) => {
      answers.push(answer)
    },
    fetch: globalThis.fetch,
    webSocket: () => {
      throw new Error("this channel opens no WebSocket")
    },
    connect: async () => {
      throw new Error("this channel opens no TCP connection")
    },
  } as ChannelContext
  return { context, received, answers, logs, controller }
}

export const waitUntil = async (check: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * The kernel's webhook route logic (verification, replay refusal, the handler's answer) in front
 * of a channel's `webhook`, on loopback: what Aide's `POST /wh/whatsapp/whatsapp` does.
 */
export const startWebhookFront = async (
  channel: ChannelDefinition,
  context: ChannelContext,
  secret: string,
  verifyToken: string,
  /** The route's per-client limit (default 60 a minute, as Aide's). */
  perMinute?: number,
) => {
  const options = perMinute === undefined ? {} : { rateLimit: { limit: perMinute, window: Duration.minutes(1) } }
  const webhook = channel.webhook!
  const webhooks = await Effect.runPromise(
    Effect.gen(function* () {
      const limiter = yield* RateLimiter.makeMemory
      const replays = yield* WebhookReplays.makeMemory()
      return ChannelWebhooks.make(limiter, replays, options)
    }),
  )
  const endpoint = {
    pluginId: "whatsapp",
    channelId: channel.id,
    name: channel.name,
    webhook: {
      verification: webhook.verify,
      secret: Effect.succeed(secret),
      verifyToken: Effect.succeed(verifyToken),
      handle: (request: { method: string; headers: Record<string, string>; body: string }) =>
        Effect.promise(async () => (await webhook.handle(request, context)) ?? null),
    },
    realtime: null,
    send: null,
    notify: null,
  }
  const server: Server = createServer(async (request, response) => {
    const parts: Buffer[] = []
    for await (const part of request) parts.push(part as Buffer)
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]))
    const query = Object.fromEntries(new URL(request.url ?? "/", "http://front").searchParams)
    const answer = await Effect.runPromise(
      request.method === "GET"
        ? webhooks.challenge(endpoint as never, { query, clientAddress: "127.0.0.1" })
        : webhooks.serve(endpoint as never, {
            method: request.method ?? "POST",
            headers,
            body: Buffer.concat(parts).toString("utf8"),
            clientAddress: "127.0.0.1",
          }),
    )
    response.writeHead(answer.status, answer.headers).end(answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wh/whatsapp/whatsapp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
