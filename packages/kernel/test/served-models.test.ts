import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { FakeModelServer } from "@aide/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, Scope, TestClock } from "effect"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as OpenAICompatible from "../src/models/OpenAICompatible.js"
import { parseModelList } from "../src/models/ServedModels.js"

type Respond = (response: Http.ServerResponse) => void

/** A loopback model-list server whose answer each test sets; it counts requests and their keys. */
const listServer = Effect.acquireRelease(
  Effect.async<{
    readonly url: string
    readonly server: Http.Server
    readonly authorizations: Array<string | undefined>
    respond: Respond
  }>((resume) => {
    const state = {
      url: "",
      server: Http.createServer((request, response) => {
        state.authorizations.push(request.headers.authorization)
        state.respond(response)
      }),
      authorizations: [] as Array<string | undefined>,
      respond: ((response) =>
        json(response, { object: "list", data: [{ id: "served-a" }, { id: "served-b" }] })) as Respond,
    }
    state.server.listen(0, "127.0.0.1", () => {
      state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/v1`
      resume(Effect.succeed(state))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    }),
)

const json = (response: Http.ServerResponse, body: unknown) => {
  response.setHeader("content-type", "application/json")
  response.end(JSON.stringify(body))
}

/** A provider `box` at `url` with the key `BOX_API_KEY`, suggesting `suggested-model`. */
const box = (url: string, options: Partial<OpenAICompatible.OpenAICompatiblePreset> = {}) =>
  OpenAICompatible.preset({
    id: "box",
    name: "Box",
    docUrl: "https://box.example/models",
    baseUrl: url,
    models: ["suggested-model"],
    ...options,
  })

const boxEntry = (registry: ModelRegistry.ModelRegistry["Type"]) =>
  Effect.map(registry.providers, (providers) => providers.find((provider) => provider.id === "box")!)

/** Warnings logged while the effect runs. */
const warningsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const lines: Array<string> = []
  const logger = Logger.make<unknown, void>(({ message, logLevel }) => {
    if (logLevel._tag === "Warning") lines.push(String(Array.isArray(message) ? message[0] : message))
  })
  return Effect.map(Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)), (value) => ({
    value,
    warnings: lines,
  }))
}

describe("GET /api/models lists what OpenAI-compatible servers serve", () => {
  it.scoped("the fake model server's models, for the generic provider at OPENAI_COMPATIBLE_BASE_URL", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => FakeModelServer.start({ models: ["llama3.2:3b", "qwen3:8b"] })),
        (fake) => Effect.promise(() => fake.close()),
      )
      const registry = ModelRegistry.make({
        env: { OPENAI_COMPATIBLE_BASE_URL: server.url, GROQ_BASE_URL: server.url },
      })
      const providers = yield* registry.providers
      expect(providers.find((provider) => provider.id === "openai-compatible")).toMatchObject({
        configured: true,
        models: ["llama3.2:3b", "qwen3:8b"],
      })
      // Not configured (no GROQ_API_KEY): not asked, its suggestions stay.
      expect(providers.find((provider) => provider.id === "groq")).toMatchObject({
        configured: false,
        models: expect.arrayContaining(["llama-3.3-70b-versatile"]),
      })
    }),
  )

  it.scoped("asks with the provider's key, and takes OpenAI's shape or a bare array", () =>
    Effect.gen(function* () {
      const server = yield* listServer
      const registry = ModelRegistry.make({ env: { BOX_API_KEY: "sk-box" }, providers: [box(server.url)] })
      expect(yield* boxEntry(registry)).toMatchObject({ configured: true, models: ["served-a", "served-b"] })
      expect(server.authorizations).toEqual(["Bearer sk-box"])
      server.respond = (response) =>
        json(response, [{ id: "together-style" }, { id: 7 }, "x", { id: "together-style" }])
      const bare = ModelRegistry.make({ env: { BOX_API_KEY: "sk-box" }, providers: [box(server.url)] })
      expect((yield* boxEntry(bare)).models).toEqual(["together-style"])
    }),
  )

  it.scoped("is cached for five minutes, then asked again", () =>
    Effect.gen(function* () {
      const server = yield* listServer
      const registry = ModelRegistry.make({ env: { BOX_API_KEY: "k" }, providers: [box(server.url)] })
      yield* boxEntry(registry)
      yield* boxEntry(registry)
      yield* TestClock.adjust("4 minutes")
      yield* boxEntry(registry)
      expect(server.authorizations).toHaveLength(1)
      yield* TestClock.adjust("1 minute")
      yield* boxEntry(registry)
      expect(server.authorizations).toHaveLength(2)
    }),
  )

  it.live("concurrent callers share one request", () =>
    Effect.gen(function* () {
      const server = yield* listServer
      server.respond = (response) => setTimeout(() => json(response, { data: [{ id: "slow-model" }] }), 100)
      const registry = ModelRegistry.make({ env: { BOX_API_KEY: "k" }, providers: [box(server.url)] })
      const entries = yield* Effect.all(
        Array.from({ length: 8 }, () => boxEntry(registry)),
        { concurrency: "unbounded" },
      )
      expect(entries.map((entry) => entry.models)).toEqual(entries.map(() => ["slow-model"]))
      expect(server.authorizations).toHaveLength(1)
    }).pipe(Effect.scoped),
  )

  describe("a server that fails costs the suggestions, never an error", () => {
    // ~3.5 KB of valid ids, over the 2,000 bytes these cases allow.
    const manyModels = { data: Array.from({ length: 200 }, (_, index) => ({ id: `model-${index}` })) }
    const cases: ReadonlyArray<readonly [string, Respond]> = [
      [
        "an HTTP error",
        (response) => {
          response.statusCode = 500
          json(response, { error: { message: "down" } })
        },
      ],
      ["a body that is not JSON", (response) => response.end("<html>hello</html>")],
      ["JSON that is not a model list", (response) => json(response, { object: "list", models: ["a"] })],
      ["a body over the size cap", (response) => json(response, manyModels)],
      [
        "a chunked body over the size cap",
        (response) => {
          const text = JSON.stringify(manyModels)
          for (let at = 0; at < text.length; at += 500) response.write(text.slice(at, at + 500))
          response.end()
        },
      ],
      ["a reset connection", (response) => response.socket?.destroy()],
    ]
    for (const [name, respond] of cases) {
      it.scoped(name, () =>
        Effect.gen(function* () {
          const server = yield* listServer
          server.respond = respond
          const registry = ModelRegistry.make({
            env: { BOX_API_KEY: "k" },
            providers: [box(server.url)],
            modelLists: { maxBytes: 2_000 },
          })
          expect(yield* boxEntry(registry)).toMatchObject({ configured: true, models: ["suggested-model"] })
        }),
      )
    }

    it.live("a server that never answers: within the timeout", () =>
      Effect.gen(function* () {
        const server = yield* listServer
        server.respond = () => {}
        const registry = ModelRegistry.make({
          env: { BOX_API_KEY: "k" },
          providers: [box(server.url)],
          modelLists: { timeout: "300 millis" },
        })
        const started = Date.now()
        expect((yield* boxEntry(registry)).models).toEqual(["suggested-model"])
        expect(Date.now() - started).toBeLessThan(2_000)
      }).pipe(Effect.scoped),
    )

    it.scoped("a closed port", () =>
      Effect.gen(function* () {
        const server = yield* listServer
        yield* Effect.async<void>((resume) => {
          server.server.close(() => resume(Effect.void))
        })
        const registry = ModelRegistry.make({ env: { BOX_API_KEY: "k" }, providers: [box(server.url)] })
        expect((yield* boxEntry(registry)).models).toEqual(["suggested-model"])
      }),
    )
  })

  it.scoped("a failure is warned about once per failing streak, without the key, and asked again after 30 s", () =>
    Effect.gen(function* () {
      const server = yield* listServer
      server.respond = (response) => response.writeHead(503).end()
      const registry = ModelRegistry.make({ env: { BOX_API_KEY: "sk-secret" }, providers: [box(`${server.url}`)] })
      const first = yield* warningsOf(
        Effect.gen(function* () {
          yield* boxEntry(registry)
          yield* boxEntry(registry)
          yield* TestClock.adjust("30 seconds")
          yield* boxEntry(registry)
        }),
      )
      expect(server.authorizations).toHaveLength(2)
      expect(first.warnings).toEqual([
        `the models served by provider box are unavailable (GET ${server.url}/models: HTTP 503); listing its suggestions`,
      ])
      expect(first.warnings.join()).not.toContain("sk-secret")
      // Back, then failing again: a new streak, a new warning.
      server.respond = (response) => json(response, { data: [{ id: "back" }] })
      yield* TestClock.adjust("30 seconds")
      expect((yield* boxEntry(registry)).models).toEqual(["back"])
      server.respond = (response) => response.writeHead(503).end()
      yield* TestClock.adjust("5 minutes")
      const second = yield* warningsOf(boxEntry(registry))
      expect(second.warnings).toHaveLength(1)
    }),
  )

  it.scoped(
    "a local server is configured when it answers at its default address, and quietly not when it does not",
    () =>
      Effect.gen(function* () {
        const server = yield* listServer
        const local = box(server.url, { local: true, apiKey: "optional" })
        const up = yield* warningsOf(boxEntry(ModelRegistry.make({ env: {}, providers: [local] })))
        expect(up.value).toMatchObject({ configured: true, models: ["served-a", "served-b"] })
        expect(up.value.envVars).toEqual(["BOX_BASE_URL", "BOX_API_KEY"])
        server.respond = (response) => response.socket?.destroy()
        const down = yield* warningsOf(boxEntry(ModelRegistry.make({ env: {}, providers: [local] })))
        expect(down.value).toMatchObject({ configured: false, models: ["suggested-model"] })
        expect(down.warnings).toEqual([])
        // Its address set explicitly: configured, and a failure is worth a warning.
        const set = yield* warningsOf(
          boxEntry(ModelRegistry.make({ env: { BOX_BASE_URL: server.url }, providers: [local] })),
        )
        expect(set.value.configured).toBe(true)
        expect(set.warnings).toHaveLength(1)
      }),
  )
})

describe("ModelRegistry.layer", () => {
  it.live("closing it cancels a model list in flight", () =>
    Effect.gen(function* () {
      const server = yield* listServer
      let closed!: () => void
      const connectionClosed = new Promise<void>((resolve) => {
        closed = resolve
      })
      server.respond = (response) => response.on("close", closed)
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        ModelRegistry.layer({
          env: { BOX_API_KEY: "k" },
          providers: [box(server.url)],
          modelLists: { timeout: "1 minute" },
        }),
        scope,
      )
      yield* Effect.fork(
        Effect.flatMap(ModelRegistry.ModelRegistry, (registry) => registry.providers).pipe(Effect.provide(context)),
      )
      while (server.authorizations.length === 0) yield* Effect.sleep("10 millis")
      yield* Scope.close(scope, Exit.void)
      yield* Effect.promise(() => connectionClosed).pipe(
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "still open" }),
      )
    }).pipe(Effect.scoped),
  )
})

describe("parseModelList", () => {
  it("keeps string ids once, in order, at most the cap; skips blank, long and control-character ids", () => {
    const body = {
      data: [{ id: "a" }, { id: " b " }, { id: "a" }, { id: "" }, { id: "x".repeat(300) }, { id: "c\u0000" }, {}, null],
    }
    expect(parseModelList(body, 500)).toEqual(["a", "b"])
    expect(parseModelList({ data: Array.from({ length: 600 }, (_, i) => ({ id: `m${i}` })) }, 500)).toHaveLength(500)
    expect(parseModelList({ object: "list" }, 500)).toBeUndefined()
    expect(parseModelList("nope", 500)).toBeUndefined()
  })
})
