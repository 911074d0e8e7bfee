import { join } from "node:path"
import { RateLimiter } from "@aide/kernel"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { password, request, setup, startServer, type TestServer } from "./support/server.js"

/** These suites probe error handling, not rate limits: every request gets through. */
const unlimited = Layer.succeed(
  RateLimiter.RateLimiter,
  RateLimiter.RateLimiter.of({
    consume: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
    peek: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
  }),
)

/** Sends `body` exactly as given (no JSON encoding), with `contentType` unless it is null. */
const send = async (
  url: string,
  body: string | Uint8Array<ArrayBuffer> | undefined,
  options: { readonly contentType?: string | null; readonly token?: string; readonly method?: string } = {},
) => {
  const headers: Record<string, string> = {}
  const contentType = options.contentType === undefined ? "application/json" : options.contentType
  if (contentType !== null) headers["content-type"] = contentType
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  const response = await fetch(url, {
    method: options.method ?? "POST",
    headers,
    ...(body === undefined ? {} : { body }),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json: json as any }
}

/** The shape of every error answer: a JSON object with one string `error`. */
const errorBody = { error: expect.any(String) }

describe("unknown routes", () => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer({ kernel: { rateLimiter: unlimited } })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  it.each([
    ["GET", "/nope"],
    ["GET", "/api/nope"],
    ["POST", "/api/auth/nope"],
    ["GET", "/api/auth/sessions/a/b"],
    ["DELETE", "/api/nope/123"],
  ])("%s %s answers 404 with a JSON { error }", async (method, path) => {
    const response = await request(`${server.url}${path}`, { method })
    expect(response.status).toBe(404)
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    expect(response.body).toEqual(errorBody)
  })

  it("answers 404 with a JSON { error } to a signed-in caller as well", async () => {
    const response = await request(`${server.url}/api/nope`, { token })
    expect(response.status).toBe(404)
    expect(response.body).toEqual(errorBody)
  })

  it("answers a known path with an unsupported method with a JSON { error }, never an empty body", async () => {
    const response = await request(`${server.url}/api/auth/login`, { method: "GET" })
    expect([404, 405]).toContain(response.status)
    expect(response.body).toEqual(errorBody)
  })
})

describe("malformed request bodies", () => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer({ kernel: { rateLimiter: unlimited } })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  const bodyEndpoints = ["/api/auth/setup", "/api/auth/login", "/api/auth/refresh", "/api/auth/change-password"]

  describe.each(bodyEndpoints)("POST %s", (path) => {
    it.each(['{"password":', "{password: 'x'}", "not json", "{}}", "[1,]"])(
      "answers malformed JSON %j with 400 { error }",
      async (body) => {
        const response = await send(`${server.url}${path}`, body, { token })
        expect(response.status).toBe(400)
        expect(response.json).toEqual(errorBody)
        expect(response.json.error).not.toBe("")
      },
    )
  })

  it.each([
    ["/api/auth/setup", { password: 12345678 }, "password"],
    ["/api/auth/setup", { password: null }, "password"],
    ["/api/auth/login", { password: true }, "password"],
    ["/api/auth/login", { password: ["correct horse battery staple"] }, "password"],
    ["/api/auth/change-password", { currentPassword: 1, newPassword: "a new password" }, "currentPassword"],
    ["/api/auth/change-password", { currentPassword: password, newPassword: {} }, "newPassword"],
    ["/api/auth/change-password", { newPassword: "a new password" }, "currentPassword"],
  ])("POST %s with %j answers 400 naming the field %s", async (path, body, field) => {
    const response = await request(`${server.url}${path}`, { body, token })
    expect(response.status).toBe(400)
    expect(response.body).toEqual(errorBody)
    expect(response.body.error).toContain(field)
  })

  it.each([{ refreshToken: 42 }, { refreshToken: null }, { refreshToken: "" }, { refresh_token: "aide_rt_x" }])(
    "POST /api/auth/refresh with %j answers 400 refresh_token_required",
    async (body) => {
      const response = await request(`${server.url}/api/auth/refresh`, { body })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: "refresh_token_required" })
    },
  )

  it.each([[[]], ["a password"], [null], [12345678]])(
    "POST /api/auth/login with the body %j answers 400 { error }",
    async (body) => {
      const response = await send(`${server.url}/api/auth/login`, JSON.stringify(body))
      expect(response.status).toBe(400)
      expect(response.json).toEqual(errorBody)
    },
  )

  it("refuses a multipart body with 415 { error }: every endpoint reads JSON", async () => {
    const body = `--xyz\r\nContent-Disposition: form-data; name="password"\r\n\r\n${password}\r\n--xyz--\r\n`
    const response = await send(`${server.url}/api/auth/login`, body, {
      contentType: "multipart/form-data; boundary=xyz",
    })
    expect(response.status).toBe(415)
    expect(response.json).toEqual(errorBody)
  })

  it.each([
    ["a form body", "application/x-www-form-urlencoded", `password=${encodeURIComponent(password)}`],
    ["JSON sent as text/plain", "text/plain;charset=UTF-8", JSON.stringify({ password })],
    ["JSON without a content type", null, JSON.stringify({ password })],
  ])("refuses %s with 415: browsers send those cross-site without a preflight", async (_name, type, body) => {
    const response = await send(`${server.url}/api/auth/login`, body, { contentType: type })
    expect(response.status).toBe(415)
    expect(response.json).toEqual({ error: "Content-Type must be application/json" })
  })

  it("accepts application/json with parameters, in any letter case", async () => {
    for (const contentType of ["application/json; charset=utf-8", "Application/JSON"]) {
      const response = await send(`${server.url}/api/auth/login`, JSON.stringify({ password }), { contentType })
      expect(response.status).toBe(200)
    }
  })

  it("the password still works afterwards: no malformed body changed anything", async () => {
    expect((await request(`${server.url}/api/auth/login`, { body: { password } })).status).toBe(200)
  })
})

describe("request body size limit (maxBodyBytes: 1024)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer({ maxBodyBytes: 1024, kernel: { rateLimiter: unlimited } })
  })
  afterAll(() => server.close())

  it.each(["/api/auth/setup", "/api/auth/login", "/api/auth/refresh", "/api/auth/change-password"])(
    "POST %s with a body over the limit answers 413 with a JSON { error }",
    async (path) => {
      const response = await send(`${server.url}${path}`, JSON.stringify({ password: "x".repeat(2048) }))
      expect(response.status).toBe(413)
      expect(response.json).toEqual(errorBody)
    },
  )

  it("a body just under the limit is read normally", async () => {
    const pw = "y".repeat(1000)
    const body = JSON.stringify({ password: pw })
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024)
    const response = await send(`${server.url}/api/auth/setup`, body)
    expect(response.status).toBe(201)
    expect((await request(`${server.url}/api/auth/login`, { body: { password: pw } })).status).toBe(200)
  })

  it("the limit counts bytes, not characters", async () => {
    // 400 four-byte characters: 800 UTF-16 units, 1,600 bytes.
    const response = await send(`${server.url}/api/auth/login`, JSON.stringify({ password: "🔑".repeat(400) }))
    expect(response.status).toBe(413)
    expect(response.json).toEqual(errorBody)
  })
})

/** Deeply nested JSON text: [[[…]]] `depth` levels (too deep for JSON.stringify to write). */
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

/** Bodies a client may get wrong, as raw text (or bytes) and a content type. */
const fuzzBodies: ReadonlyArray<{
  readonly name: string
  readonly body?: string | Uint8Array<ArrayBuffer>
  readonly type?: string | null
}> = [
  ...(
    [
      null,
      0,
      -1,
      1e308,
      3.14,
      true,
      false,
      "",
      "password",
      [],
      [null],
      [password],
      {},
      { password: null },
      { password: 12345678 },
      { password: true },
      { password: [] },
      { password: {} },
      { password: { toString: "x", valueOf: 1 } },
      { password: "x".repeat(500_000) },
      { password: "ø".repeat(300_000) },
      { password: "🔑".repeat(1_500) },
      { password: "\u0000\u0001\u001f\u007f" },
      { password: "\ud800\udfff\udbff" },
      { password: "пароль-密码-كلمة المرور-🔐" },
      { password: "\u202e\u200b\ufeff combining é" },
      { constructor: { prototype: { password } } },
      { password, extra: { deep: { deeper: { deepest: [1, [2, [3]]] } } } },
      { refreshToken: null },
      { refreshToken: "" },
      { refreshToken: "aide_rt_" },
      { refreshToken: "aide_rt_".padEnd(400_000, "A") },
      { refreshToken: ["aide_rt_x"] },
      { currentPassword: null, newPassword: null },
      { currentPassword: "", newPassword: "" },
      { currentPassword: "x".repeat(300_000), newPassword: "y".repeat(300_000) },
      { currentPassword: "wrong password", newPassword: "🔑" },
      { currentPassword: { $ne: null }, newPassword: "a new password" },
    ] as ReadonlyArray<unknown>
  ).map((value) => ({ name: JSON.stringify(value).slice(0, 60), body: JSON.stringify(value) })),
  { name: "a password nested 5,000 arrays deep", body: `{"password":${nested(5_000)}}` },
  { name: "an unknown field nested 50,000 arrays deep", body: `{"password":"x","extra":${nested(50_000)}}` },
  { name: "a body nested 50,000 arrays deep", body: nested(50_000) },
  { name: "a JSON object with a duplicate key", body: '{"password":"a","password":"b"}' },
  { name: "an object with a __proto__ key", body: '{"__proto__":{"password":"x"},"password":"y"}' },
  { name: "an unterminated array nested 100,000 deep", body: "[".repeat(100_000) },
  { name: "a syntax error deep in a long object", body: `{"password":"${"z".repeat(100_000)}"` },
  { name: "NaN", body: "NaN" },
  { name: "whitespace only", body: " \n\t " },
  { name: "an empty body", body: "" },
  { name: "no body at all" },
  {
    name: "bytes that are not UTF-8",
    body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x22, 0xc0, 0x22, 0x7d]),
  },
  { name: "JSON without a content type", body: JSON.stringify({ password }), type: null },
  { name: "JSON sent as text/plain", body: JSON.stringify({ password }), type: "text/plain" },
  { name: "a form body", body: "password=x&refreshToken=y", type: "application/x-www-form-urlencoded" },
  { name: "a multipart content type without a boundary", body: "--x\r\n", type: "multipart/form-data" },
  { name: "a multipart body that never ends", body: "no boundary here", type: "multipart/form-data; boundary=xyz" },
  {
    name: "a multipart body with a broken part header",
    body: "--xyz\r\nbroken header line\r\n\r\nabc\r\n--xyz--\r\n",
    type: "multipart/form-data; boundary=xyz",
  },
  {
    name: "a multipart file upload",
    body: '--xyz\r\nContent-Disposition: form-data; name="password"; filename="a.txt"\r\n\r\nabc\r\n--xyz--\r\n',
    type: "multipart/form-data; boundary=xyz",
  },
  { name: "an unknown content type", body: "\u0000\u0001", type: "application/octet-stream" },
  { name: "a malformed content type", body: JSON.stringify({ password }), type: "application/json; charset" },
]

describe("no client mistake is ever answered with a 500", () => {
  let fresh: TestServer
  let configured: TestServer
  let token: string
  beforeAll(async () => {
    ;[fresh, configured] = await Promise.all([
      startServer({ kernel: { rateLimiter: unlimited } }),
      startServer({ kernel: { rateLimiter: unlimited } }),
    ])
    token = (await setup(configured)).token
  })
  afterAll(() => Promise.all([fresh.close(), configured.close()]))

  const endpoints = [
    { server: () => fresh, path: "/api/auth/login", state: "before setup" },
    { server: () => configured, path: "/api/auth/setup", state: "after setup" },
    { server: () => configured, path: "/api/auth/login", state: "after setup" },
    { server: () => configured, path: "/api/auth/refresh", state: "after setup" },
    { server: () => configured, path: "/api/auth/change-password", state: "after setup" },
    // Last: one of the bodies may well be a valid password.
    { server: () => fresh, path: "/api/auth/setup", state: "before setup" },
  ]

  it.each(endpoints)(
    "POST $path ($state) answers every fuzzed body with a 2xx or a 4xx { error }",
    async (endpoint) => {
      const unexpected: Array<{ readonly body: string; readonly status: number; readonly text: string }> = []
      for (const fuzz of fuzzBodies) {
        const response = await send(`${endpoint.server().url}${endpoint.path}`, fuzz.body, {
          token,
          ...(fuzz.type === undefined ? {} : { contentType: fuzz.type }),
        })
        const fine =
          (response.status >= 200 && response.status < 300) ||
          (response.status >= 400 && response.status < 500 && typeof response.json?.error === "string")
        if (!fine) unexpected.push({ body: fuzz.name, status: response.status, text: response.text.slice(0, 200) })
      }
      expect(unexpected).toEqual([])
    },
  )

  it("both servers still answer normally afterwards", async () => {
    expect((await request(configured.url)).status).toBe(200)
    expect((await request(`${configured.url}/api/auth/sessions`, { token })).status).toBe(200)
    expect((await request(fresh.url)).status).toBe(200)
  })
})

/** Drops a table under the running server, as a broken or tampered-with database would. */
const dropTable = (databaseFile: string, table: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`DROP TABLE ${table}`)
  }).pipe(Effect.provide(SqliteClient.layer({ filename: databaseFile })), Effect.runPromise)

describe("unexpected failures", () => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer({ kernel: { rateLimiter: unlimited } })
    token = (await setup(server)).token
    await dropTable(join(server.dataDir, "aide.db"), "auth_owner")
  })
  afterAll(() => server.close())

  it("answer 500 internal_error with an X-Request-Id and nothing of the failure in the body", async () => {
    const response = await send(`${server.url}/api/auth/login`, JSON.stringify({ password }))
    expect(response.status).toBe(500)
    expect(response.json).toEqual({ error: "internal_error" })
    expect(response.headers.get("x-request-id")).toMatch(/\S/)
    expect(response.text).not.toMatch(/auth_owner|sqlite|StorageError|SqlError|stack|\bat /i)
  })

  it("give every 500 its own request id", async () => {
    const first = await send(`${server.url}/api/auth/login`, JSON.stringify({ password }))
    const second = await send(
      `${server.url}/api/auth/change-password`,
      JSON.stringify({ currentPassword: password, newPassword: "another password" }),
      { token },
    )
    expect([first.status, second.status]).toEqual([500, 500])
    expect(second.json).toEqual({ error: "internal_error" })
    expect(first.headers.get("x-request-id")).not.toBe(second.headers.get("x-request-id"))
  })

  it("leave the rest of the server running", async () => {
    expect((await request(server.url)).status).toBe(200)
    expect((await request(`${server.url}/api/auth/sessions`, { token })).status).toBe(200)
  })
})
