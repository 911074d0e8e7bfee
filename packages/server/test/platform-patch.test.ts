import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer, HttpServerRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, ManagedRuntime, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// Our patch of @effect/platform (patches/README.md): a handler runs in the request's own context
// when that context already holds every service its group was built with, instead of a merge of
// the two made per request. What a handler can read must not change either way: these run both
// paths, over a real socket, through the patched package the server is bundled with.

class GroupOnly extends Context.Tag("test/GroupOnly")<GroupOnly, { readonly name: string }>() {}
class Shared extends Context.Tag("test/Shared")<Shared, { readonly name: string }>() {}
class Both extends Context.Tag("test/Both")<Both, { readonly name: string }>() {}

const Answer = Schema.Struct({ group: Schema.String, shared: Schema.String, both: Schema.String, path: Schema.String })
const Api = HttpApi.make("patch")
  .add(HttpApiGroup.make("merged").add(HttpApiEndpoint.get("merged", "/merged").addSuccess(Answer)))
  .add(HttpApiGroup.make("covered").add(HttpApiEndpoint.get("covered", "/covered").addSuccess(Answer)))
  .add(HttpApiGroup.make("scoped").add(HttpApiEndpoint.get("scoped", "/scoped").addSuccess(Schema.Number)))

/** Read per request, from the context the handler runs in (not captured when the group was built). */
const answer = Effect.gen(function* () {
  const group = yield* Effect.serviceOption(GroupOnly)
  const shared = yield* Shared
  const both = yield* Both
  const request = yield* HttpServerRequest.HttpServerRequest
  return {
    group: group._tag === "Some" ? group.value.name : "none",
    shared: shared.name,
    both: both.name,
    path: request.url,
  }
})

let finalizersRun = 0
const groups = Layer.mergeAll(
  // Given services the requests' context lacks (GroupOnly), so the two are merged per request;
  // and one the requests hold a value of their own for (Both): the request's wins, as upstream.
  HttpApiBuilder.group(Api, "merged", (handlers) => handlers.handle("merged", () => answer)).pipe(
    Layer.provide(Layer.succeed(GroupOnly, { name: "the group's own" })),
    Layer.provide(Layer.succeed(Both, { name: "the group's" })),
  ),
  // Built with nothing the requests lack: they run in the request's context as it is.
  HttpApiBuilder.group(Api, "covered", (handlers) => handlers.handle("covered", () => answer)),
  // A finalizer a handler adds belongs to its request's scope, not to the layer's.
  HttpApiBuilder.group(Api, "scoped", (handlers) =>
    handlers.handle("scoped", () =>
      Effect.as(
        Effect.addFinalizer(() => Effect.sync(() => finalizersRun++)),
        finalizersRun,
      ),
    ),
  ),
)

describe("the patched HttpApiBuilder: a handler's context", () => {
  let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
  let url: string
  beforeAll(async () => {
    const api = HttpApiBuilder.api(Api).pipe(
      Layer.provide(groups),
      Layer.provideMerge(
        Layer.mergeAll(Layer.succeed(Shared, { name: "shared" }), Layer.succeed(Both, { name: "the requests'" })),
      ),
    )
    const served = HttpApiBuilder.serve().pipe(
      Layer.provide(api),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    )
    runtime = ManagedRuntime.make(served)
    const server = await runtime.runPromise(HttpServer.HttpServer)
    const address = server.address as unknown as AddressInfo & { port: number }
    url = `http://127.0.0.1:${address.port}`
  })
  afterAll(() => runtime?.dispose())

  it("still sees a service only its group was given, and the request's value of one both hold (the merge)", async () => {
    const response = await fetch(`${url}/merged`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      group: "the group's own",
      shared: "shared",
      both: "the requests'",
      path: "/merged",
    })
  })

  it("sees the services the request holds too, and the request itself (the request's context as it is)", async () => {
    const response = await fetch(`${url}/covered`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ group: "none", shared: "shared", both: "the requests'", path: "/covered" })
  })

  it("closes what a handler acquires with its request, not with the server", async () => {
    const before = finalizersRun
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${url}/scoped`)
      expect(await response.json()).toBe(before + i)
    }
    expect(finalizersRun).toBe(before + 3)
  })
})
