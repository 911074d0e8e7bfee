import * as Fs from "node:fs"
import * as Path from "node:path"
import { singleModelRegistry } from "@aide/testing/effect"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import * as Jose from "jose"
import { describe, expect, it } from "vitest"
import * as Auth from "../src/auth/Auth.js"
import * as HostAuth from "../src/auth/HostAuth.js"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as Chat from "../src/chat/Chat.js"
import * as TitleGenerator from "../src/chat/TitleGenerator.js"
import * as Ids from "../src/ids/Ids.js"
import * as Kernel from "../src/Kernel.js"
import * as McpRegistry from "../src/mcp/McpRegistry.js"
import * as Memory from "../src/memory/Memory.js"
import * as NoMemory from "../src/memory/NoMemory.js"
import { ObservationStore } from "../src/memory/observational/ObservationStore.js"
import * as Recall from "../src/memory/recall/Recall.js"
import * as NoPlugins from "../src/plugins/loader/NoPlugins.js"
import * as PluginLoader from "../src/plugins/loader/PluginLoader.js"
import * as SqliteStorage from "../src/storage/SqliteStorage.js"
import * as MemoryThreads from "../src/threads/MemoryThreads.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import * as Tools from "../src/tools/Tools.js"
import { answer, scriptedModel } from "./support/chat.js"
import { tempDirectory } from "./support/files.js"
import { type Calls, spy } from "./support/recording.js"

/**
 * One test per service `Kernel.layer` takes whole: the Layer given is the one the kernel
 * provides, and the other services use it (its recorded calls come from them, not the test).
 */

const fixedModels = () => singleModelRegistry(scriptedModel(answer("Hello"), answer("Again")))

const withKernel = <A, E>(
  options: Partial<Kernel.KernelOptions>,
  body: (dataDir: string) => Effect.Effect<A, E, Kernel.KernelServices>,
): Promise<A> =>
  Effect.gen(function* () {
    const dataDir = yield* tempDirectory
    return yield* Effect.provide(
      body(dataDir),
      Kernel.layer({
        dataDir,
        signingSecret: Redacted.make(new Uint8Array(32).fill(3)),
        passwordHasher: PasswordHasher.layerTest,
        titles: TitleGenerator.layerFallback,
        modelRegistry: fixedModels(),
        scheduler: { enabled: false },
        chat: { maxRetries: 0 },
        ...options,
      }),
    )
  }).pipe(Effect.scoped, Effect.runPromise)

const runChat = (threadId: string) =>
  Effect.gen(function* () {
    const chat = yield* Chat.Chat
    const run = yield* chat.send({ threadId, parts: [{ type: "text", text: "Hi" }] })
    yield* Stream.runDrain(run.events)
    return run
  })

/** Polls `check` (real time) until it holds: background fibers run meanwhile. */
const until = (check: () => boolean) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 5_000
    while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  })

const hostSecret = new TextEncoder().encode("a host application's HMAC secret, 32+ bytes")
const hostToken = (claims: Jose.JWTPayload, secret = hostSecret) =>
  Effect.promise(() =>
    new Jose.SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("https://id.example.com")
      .setAudience("aide")
      .setExpirationTime("5m")
      .sign(secret),
  )
const hostAuth = HostAuth.layer({
  key: Redacted.make(hostSecret),
  issuer: "https://id.example.com",
  audience: "aide",
})

describe("Kernel.layer: every service given is the one the kernel uses", () => {
  it("auth: HostAuth verifies the host's tokens, has no password, and chat still works", async () => {
    const calls: Calls = []
    const result = await withKernel({ authLayer: spy(Auth.Auth, hostAuth, calls) }, () =>
      Effect.gen(function* () {
        const auth = yield* Auth.Auth
        const principal = yield* auth.authenticate(yield* hostToken({ sub: "user-1", sid: "device-9" }))
        const bySubject = yield* auth.authenticate(yield* hostToken({ sub: "user-1" }))
        const forged = yield* Effect.either(
          auth.authenticate(yield* hostToken({ sub: "user-1" }, new TextEncoder().encode("x".repeat(40)))),
        )
        const login = yield* Effect.either(auth.login("password", { userAgent: "t", ip: "127.0.0.1" }))
        yield* runChat("t-1")
        return { principal, bySubject, forged, login, isSetup: yield* auth.isSetup }
      }),
    )
    expect(result.principal).toEqual({ sessionId: "device-9" })
    expect(result.bySubject).toEqual({ sessionId: "user-1" })
    expect(result.forged._tag === "Left" && result.forged.left._tag).toBe("Unauthenticated")
    expect(result.login._tag === "Left" && result.login.left._tag).toBe("AuthExternal")
    expect(result.isSetup).toBe(true)
    expect(calls).toEqual(expect.arrayContaining(["authenticate", "login", "isSetup"]))
  })

  it("memory: chat reads and feeds the Memory and Recall given (NoMemory); working memory reads as off", async () => {
    const calls: Calls = []
    const memory = Layer.merge(spy(Memory.Memory, NoMemory.memory, calls), spy(Recall.Recall, NoMemory.recall, calls))
    const working = await withKernel({ memoryLayer: memory }, () =>
      Effect.gen(function* () {
        yield* runChat("t-1")
        yield* until(() => calls.includes("afterTurn"))
        return yield* Effect.either((yield* Memory.Memory).setWorkingMemory("# Notes"))
      }),
    )
    expect(calls).toEqual(expect.arrayContaining(["contextFor", "forTurn", "afterTurn"]))
    expect(working._tag === "Left" && working.left._tag).toBe("WorkingMemoryDisabled")
  })

  it("mcpRegistry: the registry given is listed, and the tools it registers reach chat's tools", async () => {
    const calls: Calls = []
    // A fixed, vetted toolset: registered once, never connected to anything.
    const vetted = Layer.merge(
      Layer.succeed(McpRegistry.McpRegistry, { list: Effect.succeed([]), reconnect: () => Effect.void }),
      ToolRegistry.source({
        id: "vetted",
        kind: "mcp",
        tools: Effect.succeed([
          {
            name: "lookup",
            description: "Looks a customer up",
            inputSchema: { type: "object", properties: {} },
            requireApproval: false,
            execute: () => Effect.succeed("found"),
          },
        ]),
      }),
    )
    const { tools, servers } = await withKernel({ mcpRegistry: spy(McpRegistry.McpRegistry, vetted, calls) }, () =>
      Effect.gen(function* () {
        const tools = yield* (yield* Tools.Tools).list
        return { tools, servers: yield* (yield* McpRegistry.McpRegistry).list }
      }),
    )
    expect(servers).toEqual([])
    expect(calls).toEqual(["list"])
    expect(tools.map((tool) => tool.sourceId)).toContain("vetted")
  })

  it("pluginLoader: NoPlugins lists none, and the other services work", async () => {
    const calls: Calls = []
    const listed = await withKernel({ pluginLoaderLayer: spy(PluginLoader.PluginLoader, NoPlugins.layer, calls) }, () =>
      Effect.gen(function* () {
        yield* runChat("t-1")
        return yield* (yield* PluginLoader.PluginLoader).list
      }),
    )
    expect(listed).toEqual([])
    expect(calls).toEqual(["list"])
  })

  it("titles: chat asks the TitleGenerator given to name a new thread", async () => {
    const calls: Calls = []
    await withKernel({ titles: spy(TitleGenerator.TitleGenerator, TitleGenerator.layerFallback, calls) }, () =>
      Effect.gen(function* () {
        yield* runChat("t-1")
        yield* until(() => calls.includes("generate"))
      }),
    )
    expect(calls).toContain("generate")
  })
})

describe("Kernel.layer: the options about the disk", () => {
  it("no dataDir: host auth, SQLite in memory and no plugins open no file at all", async () => {
    // With no dataDir, the only place a default could still write to is the working directory.
    const before = Fs.readdirSync(process.cwd())
    const reply = await Effect.gen(function* () {
      const run = yield* runChat("t-1")
      return run.threadId
    }).pipe(
      Effect.provide(
        Kernel.layer({
          storage: SqliteStorage.layer({ filename: ":memory:" }),
          authLayer: hostAuth,
          pluginLoaderLayer: NoPlugins.layer,
          titles: TitleGenerator.layerFallback,
          modelRegistry: fixedModels(),
          scheduler: { enabled: false },
        }),
      ),
      Effect.scoped,
      Effect.runPromise,
    )
    expect(reply).toBe("t-1")
    expect(Fs.readdirSync(process.cwd())).toEqual(before)
  })

  it("no dataDir with password auth and no signingSecret: a KernelOptionsError naming the option", () => {
    expect(() => Kernel.layer({ storage: SqliteStorage.layer({ filename: ":memory:" }) })).toThrow(
      expect.objectContaining({ _tag: "KernelOptionsError", message: expect.stringContaining("`signingSecret`") }),
    )
    expect(() => Kernel.layer({ signingSecret: Redacted.make(new Uint8Array(32)) })).toThrow(
      expect.objectContaining({ _tag: "KernelOptionsError", message: expect.stringContaining("`storage`") }),
    )
  })

  it("threads replaced without recallIndex: a KernelOptionsError, never a silent empty index", () => {
    expect(() =>
      Kernel.layer({ dataDir: Path.join("unused"), threads: MemoryThreads.layer.pipe(Layer.provide(Ids.layer)) }),
    ).toThrow(expect.objectContaining({ _tag: "KernelOptionsError", message: expect.stringContaining("recallIndex") }))
  })

  it("releaseClaimsAtStart: default on for the kernel's own SQLite file, off with `storage` given, explicit wins", async () => {
    const dataDir = await Effect.runPromise(Effect.scoped(tempDirectory))
    const file = SqliteStorage.layer({ filename: Path.join(dataDir, "aide.db") })
    const base = {
      signingSecret: Redacted.make(new Uint8Array(32).fill(3)),
      passwordHasher: PasswordHasher.layerTest,
      titles: TitleGenerator.layerFallback,
      modelRegistry: fixedModels(),
      scheduler: { enabled: false },
    }
    const claimed = Effect.flatMap(ObservationStore, (store) => store.record("resource")).pipe(
      Effect.map((record) => Option.isSome(record) && record.value.claim !== null),
    )
    /** Leaves a live claim (a replica's, or a crashed run's) in the database, then starts a kernel. */
    const claimedAfterStart = (options: Partial<Kernel.KernelOptions>) =>
      Effect.gen(function* () {
        yield* Effect.gen(function* () {
          const store = yield* ObservationStore
          const now = new Date()
          yield* store.ensureRecord("resource", "resource", "r-1", now)
          yield* store.claim("resource", "observing", "other", now, new Date(now.getTime() + 600_000))
        }).pipe(Effect.provide(Kernel.layer({ ...base, storage: file })))
        return yield* Effect.provide(claimed, Kernel.layer({ ...base, ...options }))
      }).pipe(Effect.scoped, Effect.runPromise)

    expect(await claimedAfterStart({ storage: file })).toBe(true)
    expect(await claimedAfterStart({ storage: file, releaseClaimsAtStart: true })).toBe(false)
    expect(await claimedAfterStart({ dataDir })).toBe(false)
    expect(await claimedAfterStart({ dataDir, releaseClaimsAtStart: false })).toBe(true)
  })
})
