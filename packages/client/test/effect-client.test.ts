import { AideApi } from "@aide/server"
import { FetchHttpClient, HttpApiClient } from "@effect/platform"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../../server/test/support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

describe("Effect users: HttpApiClient.make(AideApi)", () => {
  it("calls the API with the server's own contract (docs/client.md, 'Effect users')", async () => {
    const status = await Effect.gen(function* () {
      const api = yield* HttpApiClient.make(AideApi, { baseUrl: server.url })
      return yield* api.status.status()
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise)
    expect(status.auth).toEqual({ setup: false, authenticated: false })
  })
})
