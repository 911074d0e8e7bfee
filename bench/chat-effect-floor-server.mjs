// The floor of the agreed stack (issue 38): the same chats as bench/chat-floor-server.mjs, written
// the idiomatic way on what /work/shared/DESIGN.md mandates — Effect, @effect/platform's HttpApi
// served by @effect/platform-node's NodeHttpServer, @effect/sql over @effect/sql-sqlite-node, the
// AI SDK's `streamText` over `@ai-sdk/openai-compatible` with its UI message stream as the SSE body
// (an Effect Stream in an `HttpServerResponse.stream`) — and nothing of Aide: no authentication,
// no memory, no titles, no resume. Aide / this is what Aide's own code costs; this / the node
// floor is what the stack costs. Speaks the same API as the node floor (setup, config, chat, the
// "listening" log line), so bench/chat-outside.mjs and bench/chat-instructions.mjs measure it:
//
//   CHAT_INSTRUCTIONS_SERVERS=bench/chat-effect-floor-server.mjs,bench/chat-floor-server.mjs \
//     node bench/chat-instructions.mjs
//
// CHAT_EFFECT_FLOOR_ROUTER=1 (or bench/chat-effect-router-floor-server.mjs) serves the same
// routes from a plain HttpRouter (the body decoded with `HttpServerRequest.schemaBodyJson`)
// instead of an HttpApi: what HttpApi's own layer costs beside the router under it.
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

// The same package versions as the server and the kernel (pnpm does not hoist them to the root):
// Effect's from the server's dependencies, the AI SDK's from the kernel's, as the node floor does.
// Effect's modules one by one, as ES modules (what the server's bundle holds): its barrels under
// `require` load every module of every package, 3.7 s of CPU at start here, beyond what valgrind
// starts in on a loaded machine.
const requireFrom = (pkg) => createRequire(path.resolve(import.meta.dirname, `../packages/${pkg}/package.json`))
const server = requireFrom("server")
const kernel = requireFrom("kernel")
const esm = async (name, modules) => {
  const root = path.dirname(server.resolve(`${name}/package.json`))
  const { exports } = server(`${name}/package.json`)
  const loaded = await Promise.all(
    modules.map((module) => import(pathToFileURL(path.join(root, exports[`./${module}`].import)).href)),
  )
  return Object.fromEntries(modules.map((module, i) => [module, loaded[i]]))
}
const { Effect, Layer, Runtime, Schema, Stream } = await esm("effect", [
  "Effect",
  "Layer",
  "Runtime",
  "Schema",
  "Stream",
])
const { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } = await esm("@effect/platform", [
  "HttpApi",
  "HttpApiBuilder",
  "HttpApiEndpoint",
  "HttpApiGroup",
  "HttpApiSchema",
])
const { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } = await esm("@effect/platform", [
  "HttpRouter",
  "HttpServer",
  "HttpServerRequest",
  "HttpServerResponse",
])
const { NodeHttpServer, NodeRuntime } = await esm("@effect/platform-node", ["NodeHttpServer", "NodeRuntime"])
const { SqlClient } = await esm("@effect/sql", ["SqlClient"])
const { SqliteClient } = await esm("@effect/sql-sqlite-node", ["SqliteClient"])
const load = (name) => import(pathToFileURL(kernel.resolve(name)).href)
const { streamText } = await load("ai")
const { createOpenAICompatible } = await load("@ai-sdk/openai-compatible")

const model = createOpenAICompatible({
  name: "openai-compatible",
  baseURL: process.env.OPENAI_COMPATIBLE_BASE_URL,
  apiKey: process.env.OPENAI_COMPATIBLE_API_KEY,
}).chatModel("fake")

// The request body, decoded as any Effect API decodes its payload (the node floor parses JSON only).
const Part = Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })
const ChatBody = Schema.Struct({ parts: Schema.Array(Part), threadId: Schema.optional(Schema.String) })

// --- storage: one table, as the node floor's; each write in its own transaction -----------------

const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`PRAGMA synchronous = NORMAL`
  yield* sql`CREATE TABLE IF NOT EXISTS messages (thread_id TEXT, id TEXT, seq INTEGER, role TEXT, parts TEXT,
    PRIMARY KEY (thread_id, id))`
})

const save = (threadId, role, parts) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      sql`INSERT INTO messages VALUES (${threadId}, ${randomUUID()},
        (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = ${threadId}), ${role}, ${JSON.stringify(parts)})`,
    ),
  )

const history = (threadId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`SELECT role, parts FROM messages WHERE thread_id = ${threadId} ORDER BY seq`,
  )

// --- the chat: save the user's message, stream the answer, save it when the stream finishes ----

const done = new TextEncoder().encode("data: [DONE]\n\n")

const chat = ({ parts, threadId: given }) =>
  Effect.gen(function* () {
    const threadId = given ?? randomUUID()
    yield* save(threadId, "user", parts)
    const rows = yield* history(threadId)
    const messages = rows.map(({ role, parts }) => ({
      role,
      content: JSON.parse(parts)
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join(""),
    }))
    // The AI SDK calls back with the answer; the write runs on this request's runtime (its SqlClient).
    const runPromise = Runtime.runPromise(yield* Effect.runtime())
    const result = streamText({ model, system: "You are Aide.", messages })
    const ui = result.toUIMessageStream({
      onFinish: ({ responseMessage }) => runPromise(save(threadId, "assistant", responseMessage.parts)),
    })
    const encoder = new TextEncoder()
    const body = Stream.fromReadableStream(
      () => ui,
      (error) => error,
    ).pipe(
      Stream.map((chunk) => encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)),
      Stream.concat(Stream.succeed(done)),
    )
    return HttpServerResponse.stream(body, {
      contentType: "text/event-stream",
      headers: { "x-thread-id": threadId },
    })
  })

// --- the two ways to route it ------------------------------------------------------------------

const Empty = Schema.Struct({})

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("floor")
    .add(HttpApiEndpoint.get("root", "/").addSuccess(Empty))
    .add(
      HttpApiEndpoint.post("setup", "/api/auth/setup")
        .setPayload(Schema.Struct({ password: Schema.String }))
        .addSuccess(Schema.Struct({ token: Schema.String })),
    )
    .add(HttpApiEndpoint.patch("config", "/api/config").setPayload(Schema.Object).addSuccess(Empty))
    .add(
      HttpApiEndpoint.post("chat", "/api/chat")
        .setPayload(ChatBody)
        .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" })),
    ),
)

const ApiHandlers = HttpApiBuilder.group(Api, "floor", (handlers) =>
  handlers
    .handle("root", () => Effect.succeed({}))
    .handle("setup", () => Effect.succeed({ token: "floor" }))
    .handle("config", () => Effect.succeed({}))
    .handle("chat", ({ payload }) => Effect.orDie(chat(payload))),
)

const viaHttpApi = HttpApiBuilder.serve().pipe(Layer.provide(HttpApiBuilder.api(Api)), Layer.provide(ApiHandlers))

const json = (value) => HttpServerResponse.json(value)
const router = HttpRouter.empty.pipe(
  HttpRouter.get("/", json({})),
  HttpRouter.post(
    "/api/auth/setup",
    Effect.andThen(HttpServerRequest.schemaBodyJson(Schema.Struct({ password: Schema.String })), () =>
      json({ token: "floor" }),
    ),
  ),
  HttpRouter.patch(
    "/api/config",
    Effect.andThen(HttpServerRequest.schemaBodyJson(Schema.Object), () => json({})),
  ),
  HttpRouter.post("/api/chat", Effect.flatMap(HttpServerRequest.schemaBodyJson(ChatBody), chat)),
)
const viaRouter = HttpServer.serve(router)

// --- the server --------------------------------------------------------------------------------

// The line bench/harness.mjs waits for, in the shape of Aide's JSON logs.
const listening = Layer.effectDiscard(
  HttpServer.addressWith((address) =>
    Effect.sync(() =>
      console.log(
        JSON.stringify({
          message: "listening",
          annotations: { url: `http://${address.hostname}:${address.port}` },
        }),
      ),
    ),
  ),
)

const Sql = SqliteClient.layer({ filename: path.join(process.env.AIDE_DATA_DIR ?? ".", "floor.db") })
const Migrated = Layer.effectDiscard(migrate).pipe(Layer.provideMerge(Sql))

const Main = Layer.mergeAll(process.env.CHAT_EFFECT_FLOOR_ROUTER === "1" ? viaRouter : viaHttpApi, listening).pipe(
  Layer.provide(
    NodeHttpServer.layer(createServer, {
      port: Number(process.env.PORT ?? 0),
      host: process.env.HOST ?? "127.0.0.1",
    }),
  ),
  Layer.provide(Migrated),
)

// runMain interrupts on SIGTERM / SIGINT: the server closes, the process exits.
NodeRuntime.runMain(Layer.launch(Main))
