import { HttpApi, HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import * as ApiDocs from "./ApiDocs.js"

/**
 * The API reference at `path` and its script at `path/scalar.js` (http/ApiDocs.ts: self-contained,
 * with a CSP), built on the first request for either: the Scalar UI is a 3.3 MB script that
 * would otherwise be parsed, encoded and held in memory by every server process (~30 MiB RSS).
 * tsup.config.ts keeps it out of the startup chunk.
 */
export const lazyDocs = (path: `/${string}`) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const api = yield* HttpApi.Api
      const scriptPath = `${path}/scalar.js` as const
      const docs = yield* Effect.cached(ApiDocs.make(api, scriptPath))
      yield* router.get(
        path,
        Effect.map(docs, (built) => built.page),
      )
      yield* router.get(
        scriptPath,
        Effect.map(docs, (built) => built.script),
      )
    }),
  )

/**
 * `HttpApiBuilder.middlewareOpenApi` at `path`, except that the document is generated on its
 * first request instead of at every start. The same bytes.
 */
export const lazyOpenApi = (path: `/${string}`) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const { api } = yield* HttpApi.Api
      const document = yield* Effect.cached(
        Effect.suspend(() => HttpServerResponse.json(OpenApi.fromApi(api))).pipe(Effect.orDie),
      )
      yield* router.get(path, document)
    }),
  )
