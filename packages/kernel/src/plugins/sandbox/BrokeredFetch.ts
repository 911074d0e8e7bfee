import { Either, Schema } from "effect"
import * as Egress from "../../net/Egress.js"

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

export const make = (
  network: ReadonlyArray<string>,
  options: Omit<Egress.EgressOptions, "allowedHosts"> = {},
): Handler => {
  if (network.length === 0) {
    return () => Promise.reject(new Error("fetch refused: the plugin declares no network permission"))
  }
  const fetch = Egress.make({ ...options, allowedHosts: network, allowHttp: options.allowHttp ?? false })
  return async (params, signal) => {
    const decoded = decodeRequest(params)
    // The parse error would quote the plugin's values back: say what is wrong, in the host's words.
    if (Either.isLeft(decoded)) throw new Error("fetch refused: the request is not one the broker reads")
    const request = decoded.right
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
