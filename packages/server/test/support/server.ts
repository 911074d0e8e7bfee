import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Kernel, PasswordHasher, SqliteStorage } from "@aide/kernel"
import { PostgresStorage } from "@aide/kernel/postgres"
import { NodeAdapter, Server, ServerConfig } from "@aide/server"
import { createTestDatabase } from "@aide/testing/effect"
import type { SqlClient } from "@effect/sql"
import { type Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"

export type StorageKind = "sqlite" | "postgres"

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly dataDir: string
  /**
   * Runs an effect against the server's own kernel services (e.g. to seed threads through
   * `Threads`) and its database connection (unless the test replaced the storage).
   */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Kernel.KernelServices | SqlClient.SqlClient>) => Promise<A>
  /** Stops the server, closes storage, removes the data directory and any test database. */
  readonly close: () => Promise<void>
}

export interface StartOptions extends Partial<Server.WebHandlerOptions> {
  readonly storage?: StorageKind
  /**
   * `"serverless"`: `Server.webHandler` in serverless mode behind Node's http adapter instead of
   * `Server.layer` (`run` is then unavailable). Default `AIDE_TEST_MODE`, else `"server"`.
   */
  readonly mode?: "server" | "serverless"
}

/**
 * The real server on an ephemeral loopback port, as `aide-server` runs it, except that
 * passwords are hashed at minimal argon2id cost to keep suites fast.
 */
export const startServer = async (options: StartOptions = {}): Promise<TestServer> => {
  const { storage = "sqlite", mode = process.env.AIDE_TEST_MODE ?? "server", ...overrides } = options
  const dataDir = mkdtempSync(join(tmpdir(), "aide-test-"))
  const database = storage === "postgres" ? await createTestDatabase() : undefined
  // The server's own storage, as `Server` would open it, given to its kernel and kept beside it:
  // one connection (Layers are memoized by reference) that `run` can also query.
  const storageLayer =
    overrides.kernel?.storage ??
    (database
      ? PostgresStorage.layer({ url: Redacted.make(database.url) })
      : SqliteStorage.layer({ filename: join(overrides.dataDir ?? dataDir, "aide.db") }))
  const serverOptions: Server.ServerOptions = {
    port: 0,
    host: "127.0.0.1",
    dataDir,
    databaseUrl: database ? Option.some(Redacted.make(database.url)) : Option.none(),
    jwtSecret: Option.none(),
    trustProxy: { _tag: "None" },
    maxBodyBytes: ServerConfig.defaultMaxBodyBytes,
    chatMaxBodyBytes: ServerConfig.defaultChatMaxBodyBytes,
    ...overrides,
    kernel: { passwordHasher: PasswordHasher.layerTest, ...overrides.kernel, storage: storageLayer },
  }
  if (mode === "serverless") return startServerless(serverOptions, dataDir, database)
  const runtime = ManagedRuntime.make(Layer.merge(Server.layer(serverOptions), storageLayer))
  const url = await runtime.runPromise(Server.baseUrl)
  return {
    url,
    dataDir,
    run: (effect) => runtime.runPromise(effect),
    close: async () => {
      await runtime.dispose()
      await database?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** `Server.webHandler` in serverless mode, served by Node's http module through `NodeAdapter`. */
const startServerless = async (
  options: Server.WebHandlerOptions,
  dataDir: string,
  database: { readonly drop: () => Promise<void> } | undefined,
): Promise<TestServer> => {
  const web = Server.webHandler({ ...options, serverless: true })
  const http = createServer(NodeAdapter.toNodeListener(web.handler))
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    run: () => Promise.reject(new Error("run: not available on the serverless handler")),
    close: async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
      await web.dispose()
      await database?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface JsonResponse<T = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
}

/** `fetch` with a JSON body and an optional Bearer token; parses JSON answers. */
export const request = async <T = any>(
  url: string,
  init: {
    readonly method?: string
    readonly body?: unknown
    readonly token?: string
    readonly headers?: Record<string, string>
  } = {},
): Promise<JsonResponse<T>> => {
  const headers: Record<string, string> = { ...init.headers }
  if (init.body !== undefined) headers["content-type"] ??= "application/json"
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: body as T }
}

export const password = "correct horse battery staple"

/** Sets the password up and returns the first token pair. */
export const setup = async (server: TestServer, pw: string = password) => {
  const response = await request(`${server.url}/api/auth/setup`, { body: { password: pw } })
  if (response.status !== 201) throw new Error(`setup failed: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body as { token: string; refreshToken: string; expiresAt: string; refreshExpiresAt: string }
}

/**
 * Storage kinds an HTTP suite runs on: SQLite. What each store does is held on both dialects by
 * the contract suites (kernel/test/store-contracts.test.ts, threads.test.ts, chat-runs.test.ts, …),
 * so running every HTTP test again on PostgreSQL tested the same code twice.
 */
export const storageKinds: ReadonlyArray<StorageKind> = ["sqlite"]

/**
 * For the suites whose HTTP behaviour differs on PostgreSQL, SQLite and then PostgreSQL (when
 * `AIDE_TEST_DATABASE_URL` is set). On PostgreSQL a server is one of possibly several replicas:
 * runs are claimed (`PgThreadClaims`), stops travel by `PgReplicaSignals`, the scheduler runs under
 * a lease (`PgLeases`), concurrent requests meet row locks instead of SQLite's single writer, and
 * recall searches PostgreSQL's full text instead of FTS5. Those suites: chat runs, resume and stop,
 * approvals, schedules, crash recovery, semantic recall, and change-password against concurrent logins.
 */
export const storageKindsWherePostgresDiffers: ReadonlyArray<StorageKind> = process.env.AIDE_TEST_DATABASE_URL
  ? ["sqlite", "postgres"]
  : ["sqlite"]
