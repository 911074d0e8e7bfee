import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeModelServer } from "@aide/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { password, request } from "./support/server.js"

/**
 * examples/serverless: the `export default { fetch }` module, configured from the environment
 * as a platform would, served by Node's http module through its serve.ts.
 */
describe("examples/serverless", () => {
  const cronSecret = "a-cron-secret-for-the-example-of-32-bytes-or-more"
  let model: FakeModelServer
  let http: Server
  let url: string
  let dataDir: string
  let dispose: () => Promise<void>

  beforeAll(async () => {
    model = await FakeModelServer.start()
    dataDir = mkdtempSync(join(tmpdir(), "aide-serverless-example-"))
    Object.assign(process.env, {
      AIDE_DATA_DIR: dataDir,
      AIDE_CRON_SECRET: cronSecret,
      OPENAI_COMPATIBLE_BASE_URL: model.url,
    })
    const module = await import("../../../examples/serverless/src/aide.js")
    const { listener } = await import("../../../examples/serverless/src/serve.js")
    dispose = module.dispose
    http = createServer(listener)
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    http.closeAllConnections()
    await new Promise((resolve) => http.close(resolve))
    await dispose()
    await model.close()
    rmSync(dataDir, { recursive: true, force: true })
    for (const name of ["AIDE_DATA_DIR", "AIDE_CRON_SECRET", "OPENAI_COMPATIBLE_BASE_URL"]) delete process.env[name]
  })

  it("serves the API in serverless mode: setup, a chat, and the cron trigger", async () => {
    expect((await request(`${url}/`)).body).toMatchObject({ serverless: true })
    const { body: tokens } = await request(`${url}/api/auth/setup`, { body: { password } })
    await request(`${url}/api/config`, {
      method: "PATCH",
      token: tokens.token,
      body: { models: { operator: { provider: "openai-compatible", model: "fake-model" } } },
    })
    model.script({ text: "Hello from a fetch module." })
    const chat = await fetch(`${url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tokens.token}` },
      body: JSON.stringify({ parts: [{ type: "text", text: "Hi" }] }),
    })
    expect(chat.status).toBe(200)
    // Streamed word by word: one of its deltas.
    expect(await chat.text()).toContain(`"delta":"module."`)
    const due = await request(`${url}/api/schedule/run-due`, { method: "POST", token: cronSecret })
    expect(due).toMatchObject({ status: 200, body: { fired: 0 } })
  })
})
