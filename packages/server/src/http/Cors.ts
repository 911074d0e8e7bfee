import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"

/**
 * `AIDE_CORS_ORIGINS`: a comma-separated list of origins (`https://console.example.com`) allowed
 * to call the API from a browser, or `*` for any. Unset or empty: no CORS headers at all, so
 * browsers refuse cross-origin calls (the default).
 */
export const parseCorsOrigins = (value: string | undefined): ReadonlyArray<string> =>
  (value ?? "")
    .split(",")
    .map((origin) => origin.trim().replace(/\/+$/, ""))
    .filter((origin) => origin !== "")

/** Headers a browser client must be allowed to send and to read. */
const allowedHeaders = ["authorization", "content-type", "last-event-id"]
const exposedHeaders = [
  "x-thread-id",
  "x-run-id",
  "x-request-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
]

/**
 * CORS for the listed origins: preflights (`OPTIONS`) answer 204, other responses carry
 * `Access-Control-Allow-Origin` for an allowed `Origin` only. Bearer tokens travel in a header,
 * not in cookies, so credentials are not allowed. No origins: nothing is added.
 */
export const layer = (origins: ReadonlyArray<string>): Layer.Layer<never> => {
  if (origins.length === 0) return Layer.empty
  const allowed = new Set(origins)
  return HttpApiBuilder.middlewareCors({
    allowedOrigins: allowed.has("*") ? ["*"] : (origin) => allowed.has(origin),
    allowedMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders,
    exposedHeaders,
    maxAge: 600,
    credentials: false,
  })
}
