import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ApiScript from "../../../examples/api-script/src/main.js"
import * as EmbedKernel from "../../../examples/embed-kernel/src/main.js"
import { password, startServer, type TestServer } from "./support/server.js"

describe("examples/embed-kernel", () => {
  it("runs the auth lifecycle on a kernel with swapped Layers", async () => {
    const result = await EmbedKernel.run()
    expect(result).toEqual({ sessions: 1, loggedOut: true, hashes: 1 })
  })
})

describe("examples/api-script", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it("sets up on first run, then logs in, refreshes and lists sessions", async () => {
    const first = await ApiScript.run(server.url, password)
    expect(first.sessions).toBe(1)
    const second = await ApiScript.run(server.url, password)
    expect(second.sessions).toBe(2)
    expect(second.current).not.toBe(first.current)
  })
})
