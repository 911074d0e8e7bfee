import * as Path from "node:path"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { FakeModelServer, type RecordedRequest, type Turn } from "@aide/testing"
import {
  createTestDatabase,
  postgresAvailable,
  singleModelRegistry,
  tempDirectory,
  testKernel,
} from "@aide/testing/effect"
import type { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Redacted, type Scope } from "effect"
import * as PasswordHasher from "../../src/auth/PasswordHasher.js"
import * as TitleGenerator from "../../src/chat/TitleGenerator.js"
import { AppConfig } from "../../src/config/AppConfig.js"
import * as Kernel from "../../src/Kernel.js"
import * as PostgresStorage from "../../src/storage/PostgresStorage.js"
import * as SqliteStorage from "../../src/storage/SqliteStorage.js"
import type { StorageError } from "../../src/storage/StorageError.js"
import { type StoredMessage, Threads } from "../../src/threads/Threads.js"

/** Memory tests run on both dialects, each test on a database of its own. */
export const dialects = postgresAvailable ? (["sqlite", "postgres"] as const) : (["sqlite"] as const)
export type Dialect = (typeof dialects)[number]

/** A storage connection per call (a second call on one `Database` is a second process). */
export interface Database {
  readonly connect: () => Layer.Layer<SqlClient.SqlClient, unknown>
}

export const database = (dialect: Dialect): Effect.Effect<Database, never, Scope.Scope> =>
  dialect === "sqlite"
    ? Effect.map(tempDirectory, (directory) => ({
        connect: () => SqliteStorage.layer({ filename: Path.join(directory, "aide.db") }),
      }))
    : Effect.map(
        Effect.acquireRelease(
          Effect.promise(() => createTestDatabase()),
          (created) => Effect.promise(() => created.drop()),
        ),
        (created) => ({
          connect: () => PostgresStorage.layer({ url: Redacted.make(created.url), maxConnections: 4 }),
        }),
      )

export const fakeServer = Effect.acquireRelease(
  Effect.promise(() => FakeModelServer.start()),
  (server) => Effect.promise(() => server.close()),
)

export const isObserver = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages[0] ?? "").includes("memory observer")
export const isReflector = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages[0] ?? "").includes("memory reflector")

/** A turn only the observer (or the reflector) consumes. */
export const observerTurn = (turn: Turn): Turn => ({ ...turn, match: isObserver })
export const reflectorTurn = (turn: Turn): Turn => ({ ...turn, match: isReflector })

/** A kernel ("process") on `db`, every model the fake server's, memory's breaker quick. */
export const kernelOn = (
  db: Database,
  server: FakeModelServer,
  dataDir: string,
  memory: Kernel.ServicesOptions["memory"] = {},
  stores: Partial<Kernel.KernelOptions> = {},
) =>
  testKernel({
    ...stores,
    dataDir,
    storage: db.connect() as Layer.Layer<SqlClient.SqlClient, StorageError>,
    model: createOpenAICompatible({ name: "fake", baseURL: server.url })("fake-model"),
    memory: { claims: { pause: Duration.millis(300), maxPause: Duration.millis(300) }, ...memory },
    scheduler: { enabled: false },
  })

/** `kernelOn`'s kernel with every store in memory (`Kernel.layerMemory`): the same tests as on SQL. */
export const kernelInMemory = (server: FakeModelServer) =>
  Kernel.layerMemory({
    passwordHasher: PasswordHasher.layerTest,
    titles: TitleGenerator.layerFallback,
    modelRegistry: singleModelRegistry(createOpenAICompatible({ name: "fake", baseURL: server.url })("fake-model")),
    chat: { maxRetries: 0 },
    memory: { claims: { pause: Duration.millis(300), maxPause: Duration.millis(300) } },
    scheduler: { enabled: false },
  })

/** Memory's config for a test: small thresholds so a few messages cross them. */
export const configure = (memory: Record<string, unknown>) =>
  Effect.flatMap(AppConfig, (config) => config.patch({ memory: { observationalMemory: memory } }))

let counter = 0
export const textMessage = (role: "user" | "assistant", text: string): StoredMessage => ({
  id: `m${++counter}-${role}`,
  role,
  parts: [{ type: "text", text }],
})

/** Saves messages in a thread (created when missing), as a finished turn would have. */
export const saveTurn = (threadId: string, messages: ReadonlyArray<StoredMessage>) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    yield* threads.ensure(threadId)
    for (const message of messages) yield* threads.saveMessage(threadId, message)
  })

export const words = (count: number, word = "remember") => Array.from({ length: count }, () => word).join(" ")

export type MemoryKernel = Layer.Layer.Success<ReturnType<typeof kernelOn>>

/** A test on a fresh database of `dialect` ("memory": every store in memory, the same tests as on SQL) with one kernel and the fake model server. */
export const withKernel = <A, E, R>(
  dialect: Dialect | "memory",
  body: (server: FakeModelServer) => Effect.Effect<A, E, R>,
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const server = yield* fakeServer
      const db = yield* database(dialect === "memory" ? "sqlite" : dialect)
      const dataDir = yield* tempDirectory
      const kernel = dialect === "memory" ? kernelInMemory(server) : kernelOn(db, server, dataDir)
      return yield* Effect.provide(body(server) as Effect.Effect<A, E, never>, kernel)
    }),
  )
