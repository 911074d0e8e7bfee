import * as Http from "node:http"
import { PasswordHasher } from "@aide/kernel"
import { Effect, Layer } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import {
  type JsonResponse,
  password,
  request,
  setup,
  startServer,
  storageKinds,
  storageKindsWherePostgresDiffers,
  type TestServer,
} from "./support/server.js"

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const newPassword = "a brand new passphrase"

interface Pair {
  readonly token: string
  readonly refreshToken: string
}

const changePassword = (server: TestServer, token: string, body: unknown) =>
  request(`${server.url}/api/auth/change-password`, { method: "POST", token, body })

const login = (server: TestServer, pw: string) => request(`${server.url}/api/auth/login`, { body: { password: pw } })

const refresh = (server: TestServer, refreshToken: string) =>
  request(`${server.url}/api/auth/refresh`, { body: { refreshToken } })

const listSessions = (server: TestServer, token: string) => request(`${server.url}/api/auth/sessions`, { token })

describe.each(storageKinds)("POST /api/auth/change-password (%s)", (storage) => {
  let server: TestServer
  let tokens: Pair
  beforeEach(async () => {
    server = await startServer({ storage })
    tokens = await setup(server)
  })
  afterEach(() => server.close())

  it("answers 401 invalid_credentials for a wrong current password, and changes nothing", async () => {
    const response = await changePassword(server, tokens.token, { currentPassword: `${password}?`, newPassword })
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: "invalid_credentials" })
    expect((await listSessions(server, tokens.token)).status).toBe(200)
    expect((await login(server, password)).status).toBe(200)
    expect((await login(server, newPassword)).status).toBe(401)
  })

  it("rejects a new password shorter than 8 characters with 400 and a message, and changes nothing", async () => {
    const response = await changePassword(server, tokens.token, { currentPassword: password, newPassword: "1234567" })
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String) })
    expect((await listSessions(server, tokens.token)).status).toBe(200)
    expect((await login(server, password)).status).toBe(200)
  })

  it("returns a new token pair that works", async () => {
    const response = await changePassword(server, tokens.token, { currentPassword: password, newPassword })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      token: expect.any(String),
      refreshToken: expect.any(String),
      expiresAt: expect.stringMatching(isoTimestamp),
      refreshExpiresAt: expect.stringMatching(isoTimestamp),
    })
    expect(response.headers.get("cache-control")).toBe("no-store")
    const sessions = await listSessions(server, response.body.token)
    expect(sessions.status).toBe(200)
    expect(sessions.body.sessions).toEqual([expect.objectContaining({ current: true })])
    expect((await refresh(server, response.body.refreshToken)).status).toBe(200)
  })

  it("invalidates every session: all old access and refresh tokens fail", async () => {
    const phone: Pair = (await login(server, password)).body
    const tablet: Pair = (await login(server, password)).body
    const rotated: Pair = (await refresh(server, tablet.refreshToken)).body
    const changed = await changePassword(server, tokens.token, { currentPassword: password, newPassword })
    expect(changed.status).toBe(200)

    for (const old of [tokens, phone, tablet, rotated]) {
      const response = await listSessions(server, old.token)
      expect(response.status).toBe(401)
      expect(response.body).toEqual({ error: "unauthorized" })
    }
    for (const old of [tokens, phone, rotated]) expect((await refresh(server, old.refreshToken)).status).toBe(401)
    expect((await listSessions(server, changed.body.token)).body.sessions).toHaveLength(1)
  })

  it("replaces the password: the old one no longer logs in, the new one does", async () => {
    expect((await changePassword(server, tokens.token, { currentPassword: password, newPassword })).status).toBe(200)
    const old = await login(server, password)
    expect(old.status).toBe(401)
    expect(old.body).toEqual({ error: "invalid_credentials" })
    expect((await login(server, newPassword)).status).toBe(200)
  })

  it.each([
    { name: "no newPassword", body: { currentPassword: password } },
    { name: "no currentPassword", body: { newPassword } },
    { name: "a numeric newPassword", body: { currentPassword: password, newPassword: 123456789 } },
    { name: "a null currentPassword", body: { currentPassword: null, newPassword } },
    { name: "a body that is not JSON", body: "currentPassword=x&newPassword=y" },
    { name: "a JSON array body", body: [password, newPassword] },
  ])("answers 400 { error: string }, never 500, for $name", async ({ body }) => {
    const response = await changePassword(server, tokens.token, body)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String) })
    expect((await login(server, password)).status).toBe(200)
  })
})

/**
 * A JSON POST sent from the loopback address `from`: each round of the race below uses fresh
 * addresses so that the per-client rate limits (5 logins a minute) never answer in its place.
 */
const postFrom = (server: TestServer, from: string, path: string, body: unknown, token?: string) =>
  new Promise<JsonResponse>((resolve, reject) => {
    const url = new URL(path, server.url)
    const payload = JSON.stringify(body)
    const outgoing = Http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        localAddress: from,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          resolve({
            status: response.statusCode ?? 0,
            headers: new Headers(),
            body: text === "" ? undefined : JSON.parse(text),
          })
        })
        response.on("error", reject)
      },
    )
    outgoing.on("error", reject)
    outgoing.end(payload)
  })

const after = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/**
 * argon2id at test cost plus the ~20 ms a real argon2id check takes: the window in which a login
 * holds a hash it read before a change. (Only the odds of hitting the race depend on it.)
 */
const realisticHasher = Layer.effect(
  PasswordHasher.PasswordHasher,
  Effect.map(PasswordHasher.PasswordHasher, (real) => ({
    hash: real.hash,
    verify: (hash: string, candidate: string) =>
      Effect.zipRight(Effect.sleep("20 millis"), real.verify(hash, candidate)),
  })),
).pipe(Layer.provide(PasswordHasher.layerTest))

describe.each(storageKindsWherePostgresDiffers)(
  "change-password is serialized with concurrent logins (%s)",
  (storage) => {
    let server: TestServer
    beforeEach(async () => {
      server = await startServer({ storage, kernel: { passwordHasher: realisticHasher } })
    })
    afterEach(() => server.close())

    it("no token from a login with the old password works once the change is done", async () => {
      const rounds = 12
      let current = password
      let token = (await setup(server, current)).token
      let oldPasswordLogins = 0
      for (let round = 1; round <= rounds; round++) {
        const next = `new passphrase number ${round}`
        // One login sent just before the change, the others while it is in flight (its own check
        // and hash take ~25 ms); each reads the hash at a different point of the change.
        const logins = [0, 5, 15, 25, 35].map(async (delay) => {
          await after(delay)
          return postFrom(server, `127.0.2.${round}`, "/api/auth/login", { password: current })
        })
        await after(5)
        const body = { currentPassword: current, newPassword: next }
        const changed = await postFrom(server, `127.0.1.${round}`, "/api/auth/change-password", body, token)
        expect(changed.status).toBe(200)

        for (const login of await Promise.all(logins)) {
          expect([200, 401]).toContain(login.status)
          if (login.status !== 200) continue
          oldPasswordLogins += 1
          expect((await listSessions(server, login.body.token)).status).toBe(401)
          const refreshed = await postFrom(server, `127.0.3.${round}`, "/api/auth/refresh", {
            refreshToken: login.body.refreshToken,
          })
          expect(refreshed.status).toBe(401)
        }
        // Checked before the next change, which would revoke a session that escaped this one.
        const sessions = await listSessions(server, changed.body.token)
        expect(sessions.body.sessions).toHaveLength(1)
        current = next
        token = changed.body.token
      }
      // Logins that reached the database before the change did must have been revoked by it.
      expect(oldPasswordLogins).toBeGreaterThan(0)
    }, 60_000)
  },
)
