import { DatabasePool, KernelMetrics, StreamHub } from "@aide/kernel"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Metric, Option, type Redacted } from "effect"
import * as BearerGate from "../http/BearerGate.js"
import type { TrustProxy } from "../http/ClientAddress.js"
import * as Prometheus from "./Prometheus.js"

const sseSubscribers = Metric.gauge("aide_sse_subscribers", {
  description: "Clients following a chat stream (reconnects and second tabs), now.",
})
const activeStreams = Metric.gauge("aide_chat_active_streams", { description: "Chat streams running now." })

/**
 * `GET /metrics`: the registry in Prometheus text, for a scraper holding `AIDE_METRICS_TOKEN` as
 * its Bearer (an owner's access token works too; wrong ones are rate-limited, see `BearerGate`).
 * On the API's own port: one listener, and the same Host/Origin checks and limits as every
 * route. Gauges are read at scrape time.
 */
export const layer = (options: {
  readonly metricsToken: Option.Option<Redacted.Redacted<string>>
  readonly trustProxy: TrustProxy
}) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const gate = yield* BearerGate.make({
        route: "/metrics",
        secret: options.metricsToken,
        trustProxy: options.trustProxy,
      })
      const hub = yield* StreamHub.StreamHub
      // A storage of the embedder's own may not say how full its pool is: then no pool lines.
      const pool = yield* Effect.serviceOption(DatabasePool.DatabasePool)
      const scrape = Effect.gen(function* () {
        yield* Metric.set(sseSubscribers, yield* hub.subscriberCount())
        yield* Metric.set(activeStreams, (yield* hub.activeThreadIds).length)
        if (Option.isSome(pool)) KernelMetrics.recordPoolUsage(yield* pool.value.usage)
        const text = yield* Prometheus.render("aide_")
        return HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
      })
      yield* router.get("/metrics", gate(scrape))
    }),
  )
