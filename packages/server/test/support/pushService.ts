import * as Crypto from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

/** A request the fake push service received. */
export interface PushRequest {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: Buffer
}

/**
 * A loopback HTTP server playing a push service (RFC 8030): records each POST and answers the
 * status set for its path (default 201 Created), after `hooks.onPush` (what a browser does on
 * receipt, e.g. open the link) when one is set.
 */
export const startPushService = async () => {
  const received: Array<PushRequest> = []
  const statuses = new Map<string, number>()
  const hooks: { onPush?: ((pushed: PushRequest) => Promise<void>) | undefined } = {}
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const path = request.url ?? "/"
      const pushed = { path, headers: request.headers, body: Buffer.concat(chunks) }
      received.push(pushed)
      void Promise.resolve(hooks.onPush?.(pushed)).finally(() => response.writeHead(statuses.get(path) ?? 201).end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    statuses,
    hooks,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

/** What a browser holds for one subscription: its ECDH P-256 key pair and the auth secret. */
export const browserKeys = () => {
  const ecdh = Crypto.createECDH("prime256v1")
  ecdh.generateKeys()
  const auth = Crypto.randomBytes(16)
  return {
    ecdh,
    auth,
    json: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
  }
}

const hkdf = (salt: Buffer, ikm: Buffer, info: Buffer, length: number) =>
  Buffer.from(Crypto.hkdfSync("sha256", ikm, salt, info, length))

/**
 * Decrypts a Web Push message body (RFC 8291 over RFC 8188 `aes128gcm`, one record), written
 * here from the RFCs rather than with the library the server encrypts with.
 */
export const decrypt = (body: Buffer, keys: ReturnType<typeof browserKeys>): string => {
  const salt = body.subarray(0, 16)
  const recordSize = body.readUInt32BE(16)
  const idLength = body[20] ?? 0
  const senderPublic = body.subarray(21, 21 + idLength)
  const record = body.subarray(21 + idLength)
  if (record.length > recordSize) throw new Error("more than one record")
  const shared = keys.ecdh.computeSecret(senderPublic)
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), keys.ecdh.getPublicKey(), senderPublic])
  const ikm = hkdf(keys.auth, shared, keyInfo, 32)
  const cek = hkdf(salt, ikm, Buffer.from("Content-Encoding: aes128gcm\0"), 16)
  const nonce = hkdf(salt, ikm, Buffer.from("Content-Encoding: nonce\0"), 12)
  const decipher = Crypto.createDecipheriv("aes-128-gcm", cek, nonce)
  decipher.setAuthTag(record.subarray(record.length - 16))
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()])
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1
  while (end >= 0 && padded[end] === 0) end--
  if (padded[end] !== 2) throw new Error("no last-record delimiter")
  return padded.subarray(0, end).toString("utf8")
}

/**
 * Checks a VAPID `Authorization: vapid t=<JWT>, k=<key>` header (RFC 8292): the key is
 * `publicKey`, the JWT is ES256-signed by it, its `aud` is `audience` and it has not expired.
 */
export const verifyVapid = (header: string | undefined, publicKey: string, audience: string) => {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "")
  if (match === null) throw new Error(`not a vapid Authorization header: ${header}`)
  const [, token = "", key = ""] = match
  if (key !== publicKey) throw new Error("k is not the server's VAPID public key")
  const [head = "", payload = "", signature = ""] = token.split(".")
  const point = Buffer.from(publicKey, "base64url")
  const verifier = Crypto.createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
    format: "jwk",
  })
  const valid = Crypto.verify(
    "sha256",
    Buffer.from(`${head}.${payload}`),
    { key: verifier, dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  )
  if (!valid) throw new Error("bad JWT signature")
  const header_ = JSON.parse(Buffer.from(head, "base64url").toString())
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString())
  if (header_.alg !== "ES256") throw new Error(`alg ${header_.alg}`)
  if (claims.aud !== audience) throw new Error(`aud ${claims.aud}`)
  const now = Date.now() / 1000
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) throw new Error(`exp ${claims.exp}`)
  return claims as { readonly aud: string; readonly exp: number; readonly sub: string }
}
