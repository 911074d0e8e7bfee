import { FakeModelServer } from "@aide/testing"
import { Cause, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { loggerLayer } from "../../src/process/LogSettings.js"
import { request, setup, startServer, type TestServer } from "../support/server.js"

/**
 * Issue 20, finding 14: a provider base URL with `user:pw@` (or a key in its query) had its
 * password and query echoed in the 500 answer and in the log. URLs are shown without them.
 */
describe("credentials in a provider base URL", () => {
  let server: TestServer
  let model: FakeModelServer
  let token: string
  const logged: Array<string> = []
  const secrets = ["hunter2secret", "querysecret42"]

  beforeAll(async () => {
    model = await FakeModelServer.start()
    const base = new URL(model.url)
    const url = `http://aideuser:${secrets[0]}@${base.host}${base.pathname}?api_key=${secrets[1]}`
    for (const method of ["log", "info", "warn", "error"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
        logged.push(args.map(String).join(" "))
      })
    }
    server = await startServer({ env: { OPENAI_COMPATIBLE_BASE_URL: url }, kernel: { chat: { maxRetries: 0 } } })
    token = (await setup(server)).token
    const patched = await request(`${server.url}/api/config`, {
      method: "PATCH",
      token,
      body: { models: { operator: { provider: "openai-compatible", model: "fake-model" } } },
    })
    expect(patched.status).toBe(200)
  })
  afterAll(async () => {
    vi.restoreAllMocks()
    await server?.close()
    await model?.close()
  })

  it("the chat's 500 answer and the log show the URL without its password or query values", async () => {
    model.script({ text: "never reached" })
    const response = await request(`${server.url}/api/chat`, {
      token,
      body: { parts: [{ type: "text", text: "hi" }] },
    })
    const shown = JSON.stringify(response.body)
    expect(response.status).toBe(500)
    // Still useful: it says which URL, with the secrets masked.
    expect(shown).toContain("http://***@127.0.0.1")
    for (const secret of secrets) expect(shown).not.toContain(secret)
    const log = logged.join("\n")
    expect(log).toContain("model provider error")
    for (const secret of secrets) expect(log).not.toContain(secret)
  })

  it("GET /api/models and its log line about the provider's model list show neither", async () => {
    const response = await request(`${server.url}/api/models`, { token })
    expect(response.status).toBe(200)
    for (const secret of secrets) expect(JSON.stringify(response.body)).not.toContain(secret)
    await vi.waitFor(() => expect(logged.join("\n")).toContain("the models served by provider"))
    for (const secret of secrets) expect(logged.join("\n")).not.toContain(secret)
  })
})

describe("the server process's logger", () => {
  it("masks URL credentials in any message and annotation (json and pretty)", async () => {
    for (const format of ["json", "pretty"] as const) {
      const lines: Array<string> = []
      const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
        lines.push(args.map(String).join(" "))
      })
      try {
        await Effect.runPromise(
          Effect.logWarning(
            "failed at https://me:pw-secret-1@example.com/x?token=tok-secret-2",
            new Error("at http://u:pw-secret-3@h/"),
            Cause.fail(new Error("fetch failed: http://u:pw-secret-5@h/v1")),
          ).pipe(
            Effect.annotateLogs({ url: "https://a:pw-secret-4@example.com/" }),
            Effect.provide(loggerLayer(format)),
          ),
        )
      } finally {
        spy.mockRestore()
      }
      const text = lines.join("\n")
      expect(text).toContain("example.com")
      expect(text).toContain("fetch failed: http://***@h/v1")
      for (const secret of ["pw-secret-1", "tok-secret-2", "pw-secret-3", "pw-secret-4", "pw-secret-5"])
        expect(text).not.toContain(secret)
    }
  })
})
