import { Either, Schema } from "effect"
import * as Egress from "../../net/Egress.js"
import { normalizeHost } from "../../net/Hosts.js"
import { allows, hostDeclared, hostsOf, type NetworkEntry, urlPort } from "./NetPolicy.js"

/**
 * The host's half of a plugin's `fetch`: the child sends the request as data, the plugin's own
 * Egress broker (hosts = `permissions.network`, https only) performs it, the answer goes back
 * as data. The child never opens a connection of its own on this path.
 *
 * Both bodies are bounded while they stream: the request arrives in one wire frame, refused from
 * its header past the message limit (Frames.ts), and the response is read through Egress's
 * `maxBodyBytes` (10 MiB by default), which closes the connection at the limit.
 */

const FetchRequest = Schema.Struct({
  url: Schema.String.pipe(Schema.maxLength(8_192)),
  method: Schema.String.pipe(Schema.maxLength(20)),
  headers: Schema.Array(Schema.Tuple(Schema.String, Schema.String)).pipe(Schema.maxItems(200)),
  body: Schema.NullOr(Schema.String),
})
const decodeRequest = Schema.decodeUnknownEither(FetchRequest)

export type Handler = (params: unknown, signal: AbortSignal) => Promise<unknown>

/** The first request's port must be declared when its host is declared with one (NetPolicy.ts). */
const portDeclared = (network: ReadonlyArray<NetworkEntry>, url: string): boolean => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return true // Egress refuses it in its own words.
  }
  const host = normalizeHost(parsed)
  return allows(network, host, urlPort(parsed), "fetch") || !hostDeclared(network, host)
}

export const make = (
  network: ReadonlyArray<NetworkEntry>,
  options: Omit<Egress.EgressOptions, "allowedHosts"> = {},
): Handler => {
  if (network.length === 0) {
    return () => Promise.reject(new Error("fetch refused: the plugin declares no network permission"))
  }
  const fetch = Egress.make({ ...options, allowedHosts: hostsOf(network), allowHttp: options.allowHttp ?? false })
  return async (params, signal) => {
    const decoded = decodeRequest(params)
    // The parse error would quote the plugin's values back: say what is wrong, in the host's words.
    if (Either.isLeft(decoded)) throw new Error("fetch refused: the request is not one the broker reads")
    const request = decoded.right
    if (!portDeclared(network, request.url)) throw new Error("fetch refused: that port of the host is not declared")
    const body = request.body === null ? undefined : Buffer.from(request.body, "base64")
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers.map(([name, value]) => [name, value] as [string, string]),
      signal,
      redirect: "follow",
      ...(body === undefined ? {} : { body }),
    })
    const bytes = Buffer.from(await response.arrayBuffer())
    return {
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      url: response.url,
      body: bytes.toString("base64"),
    }
  }
}
