import { RateLimiter } from "@aide/kernel"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkJsonText, maxJsonDepth } from "../../src/http/JsonLimits.js"
import { setup, startServer, storageKinds, type TestServer } from "../support/server.js"
import { raw } from "./support/raw.js"

/**
 * Issue 9, items 1 (edge) and 12: every JSON body is bounded in nesting depth, and NUL is
 * refused in bodies and URLs, with a 400 before anything parses, decodes or stores the input.
 */

const unlimited = Layer.succeed(
  RateLimiter.RateLimiter,
  RateLimiter.RateLimiter.of({
    consume: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
    peek: (_key, limit) =>
      Effect.succeed({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfter: limit.window }),
  }),
)

const tooDeep = { error: `request body nests too deeply (limit ${maxJsonDepth} levels)` }
const nulInBody = { error: "request body must not contain NUL characters (\\u0000)" }
const nulInUrl = { error: "URL must not contain NUL characters (%00)" }

/** `{"p":{"p":…}}` nested `depth` objects deep, written without recursion. */
const nestedObjects = (depth: number) => `${'{"p":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`
const nestedArrays = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

describe("the JSON scan", () => {
  it(`accepts ${maxJsonDepth} levels and refuses one more`, () => {
    expect(checkJsonText(nestedArrays(maxJsonDepth))).toBeUndefined()
    expect(checkJsonText(nestedObjects(maxJsonDepth))).toBeUndefined()
    expect(checkJsonText(nestedArrays(maxJsonDepth + 1))).toBe("too_deep")
    expect(checkJsonText(`[${nestedObjects(maxJsonDepth)}]`)).toBe("too_deep")
  })

  it("counts depth, not brackets: siblings and brackets inside strings do not add up", () => {
    expect(checkJsonText(`[${Array.from({ length: 1000 }, () => "[[]]").join(",")}]`)).toBeUndefined()
    expect(checkJsonText(JSON.stringify({ text: "[".repeat(10_000), quoted: '"{{{{' }))).toBeUndefined()
  })

  it("finds NUL in values and keys, and nowhere else", () => {
    expect(checkJsonText(JSON.stringify({ a: "x\u0000y" }))).toBe("nul")
    expect(checkJsonText(JSON.stringify({ "k\u0000": 1 }))).toBe("nul")
    expect(checkJsonText(JSON.stringify({ a: "\\u0000 is how JSON writes NUL" }))).toBeUndefined()
    expect(checkJsonText(JSON.stringify({ a: "\u0001\u001f", b: "\\\\u0000" }))).toBeUndefined()
  })

  it("agrees with a walk of the parsed value on 2,000 random documents (long strings, escapes, NUL)", () => {
    let seed = 42
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const alphabet = ['"', "\\", "\u0000", "[", "{", "]", "a", "é", "\n", "u0000", "0"]
    const string = () => Array.from({ length: random(80) }, () => alphabet[random(alphabet.length)]).join("")
    const value = (depth: number): unknown => {
      const kind = random(depth > 70 ? 3 : 6)
      if (kind === 0) return string()
      if (kind === 1) return random(100)
      if (kind === 2) return null
      if (kind === 3) return Array.from({ length: random(3) }, () => value(depth + 1))
      return Object.fromEntries(Array.from({ length: random(3) }, () => [string(), value(depth + 1)]))
    }
    /** Depth and NUL of a parsed value, walked with an explicit stack. */
    const expected = (root: unknown) => {
      const stack: Array<readonly [unknown, number]> = [[root, 0]]
      let deepest = 0
      let nul = false
      while (stack.length > 0) {
        const [node, depth] = stack.pop()!
        if (typeof node === "string") nul ||= node.includes("\u0000")
        if (node === null || typeof node !== "object") continue
        deepest = Math.max(deepest, depth + 1)
        for (const [key, child] of Object.entries(node)) {
          nul ||= key.includes("\u0000")
          stack.push([child, depth + 1])
        }
      }
      return deepest > maxJsonDepth ? "too_deep" : nul ? "nul" : undefined
    }
    for (let round = 0; round < 2_000; round++) {
      const document = value(0)
      const actual = checkJsonText(JSON.stringify(document))
      const wanted = expected(document)
      // Both problems present: either answer is right (the scan stops at the first it meets).
      if (actual !== wanted) expect([actual, wanted].sort()).toEqual(["nul", "too_deep"])
    }
  })

  it("scans a 100,000-deep body without recursion", () => {
    expect(checkJsonText(nestedArrays(100_000))).toBe("too_deep")
    expect(checkJsonText("[".repeat(1_000_000))).toBe("too_deep")
  })
})

describe.each(storageKinds)("JSON depth and NUL at the edge (%s)", (storage) => {
  let server: TestServer
  let token: string
  beforeAll(async () => {
    server = await startServer({ storage, kernel: { rateLimiter: unlimited } })
    token = (await setup(server)).token
  })
  afterAll(() => server.close())

  const send = (method: string, path: string, body?: string) =>
    raw(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body }),
    })

  it("PATCH /api/config with plugins nested 4,000 levels answers 400 and the config still works", async () => {
    const response = await send("PATCH", "/api/config", `{"plugins":{"p":${nestedObjects(4_000)}}}`)
    expect(response.status).toBe(400)
    expect(response.json).toEqual(tooDeep)
    expect((await send("GET", "/api/config")).status).toBe(200)
    const patched = await send("PATCH", "/api/config", JSON.stringify({ plugins: { p: { enabled: true } } }))
    expect(patched.status).toBeLessThan(500)
  })

  it.each([
    ["POST", "/api/auth/login"],
    ["POST", "/api/chat"],
    ["POST", "/api/chat/approve"],
    ["PATCH", "/api/config"],
    ["POST", "/api/schedule"],
    ["PATCH", "/api/threads/t1"],
  ])("%s %s with a body 10,000 levels deep answers 400", async (method, path) => {
    for (const body of [nestedArrays(10_000), `{"x":${nestedObjects(10_000)}}`, "[".repeat(10_000)]) {
      const response = await send(method, path, body)
      expect(response.status).toBe(400)
      expect(response.json).toEqual(tooDeep)
    }
  })

  it("POST /api/chat/approve with a NUL in threadId answers 400 at once", async () => {
    const response = await send("POST", "/api/chat/approve", JSON.stringify({ runId: "r1", threadId: "ab\u0000cd" }))
    expect(response.status).toBe(400)
    expect(response.json).toEqual(nulInBody)
  })

  it.each(["a\r\nSet-Cookie: x=1", "a\u0001b", "x".repeat(100_000)])(
    "POST /api/chat/approve with threadId %j answers 404 at once, echoing no such header",
    async (threadId) => {
      const response = await send(
        "POST",
        "/api/chat/approve",
        JSON.stringify({ runId: "r1", threadId, approved: true }),
      )
      expect(response.status).toBe(404)
      expect(response.headers["x-thread-id"]).toBeUndefined()
      expect(response.headers["set-cookie"]).toBeUndefined()
    },
  )

  it.each([
    ["POST", "/api/chat", { id: "t\u0000", messages: [] }],
    ["PATCH", "/api/threads/t1", { title: "a\u0000b" }],
    ["PATCH", "/api/config", { agent: { instructions: "\u0000" } }],
    ["POST", "/api/auth/login", { password: "nul\u0000password" }],
  ])("%s %s with a NUL in a string answers 400", async (method, path, body) => {
    const response = await send(method, path, JSON.stringify(body))
    expect(response.status).toBe(400)
    expect(response.json).toEqual(nulInBody)
  })

  it.each([
    ["GET", "/api/threads/ab%00cd"],
    ["PATCH", "/api/threads/ab%00cd"],
    ["DELETE", "/api/threads/ab%00cd"],
    ["POST", "/api/threads/ab%00cd/fork"],
    ["GET", "/api/inbox/ab%00cd"],
    ["DELETE", "/api/auth/sessions/ab%00cd"],
    ["GET", "/api/chat/ab%00cd/stream"],
    ["POST", "/api/chat/ab%00cd/stop"],
    ["GET", "/api/schedule/ab%00cd"],
    ["GET", "/api/threads?cursor=%00"],
    ["GET", "/api/inbox?status=%00"],
  ])("%s %s answers 400", async (method, path) => {
    const response = await send(method, path)
    expect(response.status).toBe(400)
    expect(response.json).toEqual(nulInUrl)
  })

  it("the server answers normally afterwards", async () => {
    expect((await send("GET", "/api/threads")).status).toBe(200)
  })
})
