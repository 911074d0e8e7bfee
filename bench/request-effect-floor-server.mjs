// The floor of the stack DESIGN.md chose: the answers of bench/request-floor-server.mjs (the same
// bodies, JWT, session check and SQLite query: bench/request-floor-core.mjs) served by
// @effect/platform on NodeHttpServer, the versions Aide runs, with no Aide code and nothing
// Aide adds (no middleware, metrics, host check, limits). With tracing off as Aide runs it (no
// span per request or per Effect.fn). `EFFECT_FLOOR` picks how the app is built:
//   api     HttpApi: one group, the three endpoints with their schemas, HttpApiBuilder.serve
//   router  HttpRouter: three routes answering HttpServerResponse.unsafeJson, HttpServer.serve
//   fiber   no @effect/platform: node:http running each answer in a fiber (Effect.runFork)
// `node bench/ab.mjs floor floor-api floor-router <snapshot>` measures them beside node:http.
// `EFFECT_FLOOR_SERVICES=N` adds N services nothing reads to the context the requests run in (Aide's
// holds 57: its kernel's services ride along), to see what their copies per request cost.
import http from "node:http"
import { importFromServer, makeFloor } from "./request-floor-core.mjs"

const [{ Context, Effect, Layer, Schema }, Platform, NodeHttpServer] = await Promise.all([
  importFromServer("effect"),
  importFromServer("@effect/platform"),
  importFromServer("@effect/platform-node/NodeHttpServer"),
])
const {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiError,
  HttpApiGroup,
  HttpMiddleware,
  HttpRouter,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse,
} = Platform

const floor = makeFloor()
/** A floor answer (a value, or a Promise of it the first time a token is seen) as an Effect. */
const answer = (value) => (value instanceof Promise ? Effect.promise(() => value) : Effect.succeed(value))

const Status = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  runtime: Schema.String,
  serverless: Schema.Boolean,
  auth: Schema.Struct({ setup: Schema.Boolean, authenticated: Schema.Boolean }),
})
const TokenPair = Schema.Struct({ token: Schema.String, refreshToken: Schema.String, expiresAt: Schema.String })
const SessionList = Schema.Struct({
  sessions: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      createdAt: Schema.String,
      expiresAt: Schema.String,
      userAgent: Schema.String,
      ip: Schema.String,
      current: Schema.Boolean,
    }),
  ),
})

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("floor")
    .add(HttpApiEndpoint.get("status", "/").addSuccess(Status))
    .add(HttpApiEndpoint.post("setup", "/api/auth/setup").addSuccess(TokenPair, { status: 201 }))
    .add(
      HttpApiEndpoint.get("sessions", "/api/auth/sessions").addSuccess(SessionList).addError(HttpApiError.Unauthorized),
    ),
)

const apiServed = () =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(Api)),
    Layer.provide(
      HttpApiBuilder.group(Api, "floor", (handlers) =>
        handlers
          .handle("status", ({ request }) => answer(floor.status(request.headers.authorization)))
          .handle("setup", ({ request }) =>
            Effect.promise(() =>
              floor.setup(
                request.headers["user-agent"],
                request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "",
              ),
            ),
          )
          .handle("sessions", ({ request }) =>
            Effect.flatMap(answer(floor.sessions(request.headers.authorization)), (body) =>
              body === undefined ? Effect.fail(new HttpApiError.Unauthorized()) : Effect.succeed(body),
            ),
          ),
      ),
    ),
  )

const json = (body, status = 200) => HttpServerResponse.unsafeJson(body, { status })
const routerServed = () =>
  HttpServer.serve(
    HttpRouter.empty.pipe(
      HttpRouter.get(
        "/",
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(answer(floor.status(request.headers.authorization)), (body) => json(body)),
        ),
      ),
      HttpRouter.post(
        "/api/auth/setup",
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(
            Effect.promise(() => floor.setup(request.headers["user-agent"], "")),
            (body) => json(body, 201),
          ),
        ),
      ),
      HttpRouter.get(
        "/api/auth/sessions",
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(answer(floor.sessions(request.headers.authorization)), (body) =>
            body === undefined ? json({ error: "unauthorized" }, 401) : json(body),
          ),
        ),
      ),
    ),
  )

const kind = process.env.EFFECT_FLOOR ?? "api"
if (!["api", "router", "fiber"].includes(kind))
  throw new Error(`EFFECT_FLOOR must be api, router or fiber, not ${kind}`)

// `fiber`: no @effect/platform at all — node:http, and one fiber per request running the answer
// as an Effect, written by the fiber itself: the least any Effect-based adapter can cost.
if (kind === "fiber") {
  const send = (res, status, body) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    res.end(text)
  }
  const routes = {
    "GET /": (req, res) => Effect.map(answer(floor.status(req.headers.authorization)), (body) => send(res, 200, body)),
    "GET /api/auth/sessions": (req, res) =>
      Effect.map(answer(floor.sessions(req.headers.authorization)), (body) =>
        body === undefined ? send(res, 401, { error: "unauthorized" }) : send(res, 200, body),
      ),
    "POST /api/auth/setup": (req, res) =>
      Effect.map(
        Effect.promise(() => floor.setup(req.headers["user-agent"], req.socket.remoteAddress)),
        (body) => send(res, 201, body),
      ),
  }
  http
    .createServer((req, res) => {
      const route = routes[`${req.method} ${req.url}`]
      if (route === undefined) return send(res, 404, { error: "not_found" })
      req.resume()
      Effect.runFork(route(req, res))
    })
    .listen(Number(process.env.PORT ?? 4111), process.env.HOST ?? "127.0.0.1")
} else {
  const padding = Number(process.env.EFFECT_FLOOR_SERVICES ?? 0)
  const padded = Layer.succeedContext(
    Array.from({ length: padding }, (_, i) => i).reduce(
      (context, i) => Context.add(context, Context.GenericTag(`floor/unused/${i}`), { i }),
      Context.empty(),
    ),
  )
  const served = (kind === "api" ? apiServed() : routerServed()).pipe(
    Layer.provide(padded),
    Layer.provide(
      NodeHttpServer.layer(() => http.createServer(), {
        port: Number(process.env.PORT ?? 4111),
        host: process.env.HOST ?? "127.0.0.1",
      }),
    ),
    // As Aide runs without OTEL_EXPORTER_OTLP_ENDPOINT (packages/server/src/metrics/Tracing.ts).
    Layer.provide(Layer.setTracerEnabled(false)),
    Layer.provide(Layer.fiberRefLocallyScopedWith(HttpMiddleware.currentTracerDisabledWhen, () => () => true)),
  )
  Effect.runFork(Layer.launch(served).pipe(Effect.tapErrorCause(Effect.logError)))
}
