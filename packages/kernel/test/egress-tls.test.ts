import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Https from "node:https"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import type { TLSSocket } from "node:tls"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Egress from "../src/net/Egress.js"
import * as PinnedSend from "../src/net/PinnedSend.js"

/**
 * The pinned connection goes to an address, yet TLS must still be about the name: SNI carries
 * it and the certificate is verified against it. A self-signed certificate for
 * `a.example.com`, made with openssl for the run, is the only trusted authority here.
 */
let server: Https.Server
let port: number
let cert: string
const servernames: Array<string | false | null> = []

beforeAll(async () => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "egress-tls-"))
  ChildProcess.execFileSync("openssl", [
    ...["req", "-x509", "-nodes", "-days", "1", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"],
    ...["-keyout", Path.join(dir, "key.pem"), "-out", Path.join(dir, "cert.pem")],
    ...["-subj", "/CN=a.example.com", "-addext", "subjectAltName=DNS:a.example.com"],
  ])
  cert = Fs.readFileSync(Path.join(dir, "cert.pem"), "utf8")
  const key = Fs.readFileSync(Path.join(dir, "key.pem"), "utf8")
  Fs.rmSync(dir, { recursive: true })
  server = Https.createServer({ cert, key }, (request, response) => {
    servernames.push((request.socket as TLSSocket).servername)
    response.end(`hello ${request.headers.host}`)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const broker = () =>
  Egress.make({
    allowedKinds: ["loopback"],
    lookup: async () => ["127.0.0.1"],
    send: PinnedSend.make({ ca: cert }),
  })

describe("https to a pinned address", () => {
  it("sends the name as SNI and Host, and verifies the certificate against it", async () => {
    const response = await broker()(`https://a.example.com:${port}/`)
    expect(await response.text()).toBe(`hello a.example.com:${port}`)
    expect(servernames.at(-1)).toBe("a.example.com")
  })

  it("a certificate for another name fails, though the address is the same", async () => {
    const error = await broker()(`https://b.example.com:${port}/`).catch((e: unknown) => e)
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "ERR_TLS_CERT_ALTNAME_INVALID" } })
  })
})
