import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"

/**
 * How far to trust `X-Forwarded-For`: not at all (default), a number of proxy hops in front of
 * us (the client is that many entries from the right), or every hop (the leftmost entry).
 */
export type TrustProxy =
  | { readonly _tag: "None" }
  | { readonly _tag: "Hops"; readonly hops: number }
  | { readonly _tag: "All" }

export const trustNone: TrustProxy = { _tag: "None" }

/** `AIDE_TRUST_PROXY`: unset/`false`/`0` → none, a positive integer → hops, `true` → all. */
export const parseTrustProxy = (value: string | undefined): TrustProxy => {
  const text = (value ?? "").trim().toLowerCase()
  if (text === "" || text === "false" || text === "0") return trustNone
  if (text === "true") return { _tag: "All" }
  const hops = Number(text)
  return Number.isInteger(hops) && hops > 0 ? { _tag: "Hops", hops } : { _tag: "All" }
}

const stripMappedIpv4 = (address: string) => (address.startsWith("::ffff:") ? address.slice(7) : address)

/** The client's IP address as seen through `trust`. */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trust: TrustProxy): string => {
  const peer = stripMappedIpv4(Option.getOrElse(request.remoteAddress, () => "unknown"))
  if (trust._tag === "None") return peer
  const forwarded = request.headers["x-forwarded-for"]
  if (forwarded === undefined || forwarded.trim() === "") return peer
  const hops = forwarded
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
  const chosen = trust._tag === "All" ? hops[0] : hops[Math.max(0, hops.length - trust.hops)]
  return chosen === undefined ? peer : stripMappedIpv4(chosen)
}
