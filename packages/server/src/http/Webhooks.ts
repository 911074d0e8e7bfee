import { ChannelGateway } from "@aide/kernel"
import { ChannelWebhooks } from "@aide/kernel/internal"
import {
  HttpApiBuilder,
  HttpIncomingMessage,
  HttpRouter,
  HttpServerRequest,
  HttpServerResponse,
} from "@effect/platform"
import { Effect, Option } from "effect"
import { clientAddress, rateLimitBucket, type TrustProxy } from "./ClientAddress.js"

/** The public route channel plugins receive webhooks on (`ChannelEndpoint.webhookPath`). */
export const webhookRoute = "/wh/:pluginId/:channelId"

/** Paths the API-wide JSON checks leave alone: a webhook's body is whatever its platform sends. */
export const isWebhookPath = (path: string) => path.startsWith("/wh/")

const tooLarge = (limit: number) =>
  HttpServerResponse.unsafeJson(
    { error: `request body too large (limit ${limit} bytes)` },
    { status: 413, headers: { connection: "close" } },
  )

const respond = (answer: {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}) => {
  const { "content-type": contentType, ...headers } = answer.headers
  return HttpServerResponse.text(answer.body, {
    status: answer.status,
    headers,
    ...(contentType === undefined ? {} : { contentType }),
  })
}

/**
 * `POST /wh/:pluginId/:channelId`, outside the HttpApi (no contract, no Authentication: the
 * platforms calling it prove themselves with the channel's declared verification): the raw body
 * is read up to the limit (413) and handed to `ChannelGateway.webhook`, which rate-limits per
 * client, verifies and calls the channel. Its answer is sent as is.
 */
export const layer = (options: { readonly trustProxy: TrustProxy; readonly maxBodyBytes?: number }) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const gateway = yield* ChannelGateway.ChannelGateway
      const limit = options.maxBodyBytes ?? ChannelWebhooks.webhookDefaults.maxBodyBytes
      yield* router.post(
        webhookRoute,
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const params = yield* HttpRouter.params
          if (Number(request.headers["content-length"] ?? 0) > limit) return tooLarge(limit)
          const body = yield* request.text.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(limit)), Effect.either)
          if (body._tag === "Left") return tooLarge(limit)
          const answer = yield* gateway.webhook(params.pluginId ?? "", params.channelId ?? "", {
            method: request.method,
            headers: request.headers,
            body: body.right,
            clientAddress: rateLimitBucket(clientAddress(request, options.trustProxy)),
          })
          return respond(answer)
        }),
      )
      // Meta's subscription handshake (`subscribe` verifications); 404 for every other channel.
      yield* router.get(
        webhookRoute,
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const params = yield* HttpRouter.params
          const query = new URL(request.url, "http://aide").searchParams
          const first: Record<string, string> = {}
          for (const [name, value] of query) if (!(name in first)) first[name] = value
          const answer = yield* gateway.webhookChallenge(params.pluginId ?? "", params.channelId ?? "", {
            query: first,
            clientAddress: rateLimitBucket(clientAddress(request, options.trustProxy)),
          })
          return respond(answer)
        }),
      )
    }),
  )
