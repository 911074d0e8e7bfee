import { HttpMiddleware } from "@effect/platform"
import { Effect, Layer } from "effect"
import { constTrue } from "effect/Function"

export interface TracingOptions {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the collector's base URL; traces go to `<it>/v1/traces`. */
  readonly endpoint: string
  /** `OTEL_SERVICE_NAME`, default `aide`. */
  readonly serviceName?: string | undefined
  readonly serviceVersion: string
}

/** The OTLP/HTTP traces URL of a base endpoint, as the OpenTelemetry exporters build it. */
export const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, "")}/v1/traces`

/**
 * Effect's spans (a span per request, `Effect.fn` spans such as `Chat.send`, @effect/sql's per
 * query) exported over OTLP/HTTP (JSON) in batches. The exporter is imported only here, when
 * tracing is asked for: a server without `OTEL_EXPORTER_OTLP_ENDPOINT` never loads it. Its
 * modules are imported one by one: the package's index also loads the OpenTelemetry SDK
 * adapters, which Aide does not install.
 */
export const layer = (options: TracingOptions): Layer.Layer<never> =>
  Layer.unwrapEffect(
    Effect.promise(async () => {
      const [OtlpTracer, OtlpSerialization, FetchHttpClient] = await Promise.all([
        import("@effect/opentelemetry/OtlpTracer"),
        import("@effect/opentelemetry/OtlpSerialization"),
        import("@effect/platform/FetchHttpClient"),
      ])
      return OtlpTracer.layer({
        url: tracesUrl(options.endpoint),
        resource: { serviceName: options.serviceName ?? "aide", serviceVersion: options.serviceVersion },
      }).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))
    }),
  )

/**
 * The platform's own server span (`HttpMiddleware.tracer`, built into every served app) turned
 * off: it exports `url.full` with query values and every header outside a short denylist, and
 * adopts any caller's `traceparent`. `RequestSpan.middleware` makes the request span instead.
 */
export const platformServerSpansOff: Layer.Layer<never> = Layer.fiberRefLocallyScopedWith(
  HttpMiddleware.currentTracerDisabledWhen,
  () => constTrue,
)

/** OTLP export when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (loaded then only), else every span a no-op. */
export const fromConfig = (
  config: { readonly otlpEndpoint?: string | undefined; readonly otelServiceName?: string | undefined },
  serviceVersion: string,
): Layer.Layer<never> =>
  Layer.merge(
    platformServerSpansOff,
    config.otlpEndpoint === undefined
      ? Layer.setTracerEnabled(false)
      : layer({ endpoint: config.otlpEndpoint, serviceName: config.otelServiceName, serviceVersion }),
  )
