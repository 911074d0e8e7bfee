import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { RateLimiter, WebhookReplays } from "@aide/kernel"
import { ChannelWebhooks } from "@aide/kernel/internal"
import type { ChannelContext, ChannelDefinition, InboundMessage } from "@aide/plugin"
import { Effect } from "effect"
import WebSocket from "ws"

export type Received = InboundMessage & { readonly group?: boolean; readonly mentioned?: boolean }

/** A channel context as Aide gives it, with the brokered network backed by Node's fetch and `ws`. */
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
    connect: async () => {
      throw new Error("this channel opens no TCP connection")
    },
    webSocket: (url: string) => new WebSocket(url),
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
 * of a channel's `webhook`, on loopback: what Aide's `POST /wh/slack/slack` does.
 */
export const startWebhookFront = async (channel: ChannelDefinition, context: ChannelContext, secret: string) => {
  const webhook = channel.webhook!
  const serve = await Effect.runPromise(
    Effect.gen(function* () {
      const limiter = yield* RateLimiter.makeMemory
      const replays = yield* WebhookReplays.makeMemory()
      return ChannelWebhooks.make(limiter, replays).serve
    }),
  )
  const endpoint = {
    pluginId: "slack",
    channelId: channel.id,
    name: channel.name,
    webhook: {
      verification: webhook.verify,
      secret: Effect.succeed(secret),
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
    const answer = await Effect.runPromise(
      serve(endpoint as never, {
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
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wh/slack/slack`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
