import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as PluginProcess from "../../src/plugins/sandbox/PluginProcess.js"
import { PluginStartError } from "../../src/plugins/sandbox/SandboxErrors.js"
import { call, callFails, closeAll, failure, fixture, startPlugin } from "./sandbox-support.js"

afterAll(closeAll)

describe("a compartment plugin", () => {
  it("describes its tools and agents, and a tool call answers across the process boundary", async () => {
    const plugin = await startPlugin({
      pluginId: "basic",
      entries: { tools: ["tools.mjs"], agents: ["agents.mjs"], channels: [] },
    })
    const description = await Effect.runPromise(plugin.description)
    expect(description.tools.map((tool) => tool.id)).toEqual(["echo", "context", "wait"])
    expect(description.tools[0]).toMatchObject({ entry: "tools.mjs", name: "Echo", parameters: { type: "object" } })
    expect(description.agents).toEqual([
      {
        entry: "agents.mjs",
        id: "helper",
        name: "Helper",
        description: "Helps",
        instructions: "Be brief.",
        useTools: ["basic:echo"],
      },
    ])
    expect(description.alerts).toEqual([])
    // The tool imports a relative file of its plugin.
    expect(await call(plugin, "echo", { text: "hi" })).toEqual({ echoed: "HI" })
    expect(await Effect.runPromise(plugin.pid)).not.toBe(process.pid)
  })

  it("the context holds only env, config, signal and log; env only the declared variables", async () => {
    process.env.AIDE_SANDBOX_HOST_ONLY = "host secret"
    const plugin = await startPlugin({ pluginId: "basic", env: { WEATHER_KEY: "k" }, config: { units: "metric" } })
    expect(await call(plugin, "context")).toEqual({
      context: ["config", "env", "log", "signal"],
      env: { WEATHER_KEY: "k" },
      config: { units: "metric" },
      globals: ["console", "URL"],
      signal: true,
    })
    const empty = await startPlugin({ pluginId: "basic" })
    expect(await call(empty, "context")).toMatchObject({ env: {} })
  })

  it("an entry that fails to load gives an error alert; the others still load", async () => {
    const plugin = await startPlugin({
      pluginId: "broken",
      entries: { tools: ["tools.mjs", "bad.mjs", "missing.mjs"], agents: [], channels: [] },
    })
    const description = await Effect.runPromise(plugin.description)
    expect(description.tools.map((tool) => tool.id)).toEqual(["ok"])
    expect(description.alerts).toEqual([
      { level: "error", message: expect.stringMatching(/^bad\.mjs: .*node:fs.*may only import its own files/) },
      { level: "error", message: expect.stringMatching(/^missing\.mjs: /) },
    ])
  })

  it("an unknown tool is a clear error, and a cancelled call is cancelled in the plugin too", async () => {
    const plugin = await startPlugin({ pluginId: "basic" })
    expect((await callFails(plugin, "nope")).message).toBe("plugin basic: unknown tool nope")
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const error = await failure(plugin.callTool("wait", {}, controller.signal))
    expect(error).toMatchObject({ _tag: "PluginCallError", reason: "cancelled" })
    expect(await call(plugin, "echo", { text: "still here" })).toEqual({ echoed: "STILL HERE" })
  })

  it("a plugin folder that does not exist is a PluginStartError", async () => {
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.scoped(
          PluginProcess.start({
            pluginId: "ghost",
            directory: fixture("ghost"),
            trust: "compartment",
            entries: { tools: [], agents: [], channels: [] },
            permissions: {},
            env: {},
            config: {},
          }),
        ),
      ),
    )
    expect(error).toBeInstanceOf(PluginStartError)
    expect(error.message).toMatch(/plugin ghost did not start/)
  })
})

describe("a host plugin", () => {
  it("runs with full trust (node builtins, process) but only the declared environment", async () => {
    process.env.AIDE_SANDBOX_HOST_ONLY = "host secret"
    const plugin = await startPlugin({ pluginId: "host", trust: "host", env: { TOKEN: "t" } })
    const answer = (await call(plugin, "where")) as Record<string, unknown>
    expect(answer).toMatchObject({
      env: { TOKEN: "t" },
      contextEnv: { TOKEN: "t" },
      readsOwnFolder: true,
      now: "number",
    })
    expect(answer.pid).not.toBe(process.pid)
  })

  it("serves a channel: webhook, send, notify and a realtime connection that ends when cancelled", async () => {
    const seen: Array<[string, unknown]> = []
    const plugin = await startPlugin({
      pluginId: "host",
      trust: "host",
      entries: { tools: [], agents: [], channels: ["channel.mjs"] },
      config: { greeting: "hello" },
      onRequest: (method, params) => Effect.sync(() => void seen.push([method, params])),
    })
    expect((await Effect.runPromise(plugin.description)).channels).toEqual([
      {
        entry: "channel.mjs",
        id: "chat",
        name: "Chat",
        webhook: { kind: "token", header: "x-token", secret: { config: "token" } },
        realtime: true,
        send: true,
        notify: true,
      },
    ])
    const request = { method: "POST", headers: {}, body: "world" }
    const answer = await Effect.runPromise(plugin.request("channel.webhook", { channelId: "chat", request }))
    expect(answer).toEqual({ status: 200, body: "hello world" })
    const message = { conversationId: "c1", text: "hi", approvals: [] }
    expect(await Effect.runPromise(plugin.request("channel.send", { channelId: "chat", message }))).toBeNull()
    const notification = { subject: "s", body: "b", threadId: null }
    expect(await Effect.runPromise(plugin.request("channel.notify", { channelId: "chat", notification }))).toBeNull()
    expect(seen).toEqual([
      ["channel.receive", { channelId: "chat", message: { conversationId: "c1", text: "world" } }],
      ["channel.answerApproval", { channelId: "chat", conversationId: "c1", approvalId: "a1", approved: true }],
    ])
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const started = plugin.request(
      "channel.start",
      { channelId: "chat" },
      { timeoutMs: null, signal: controller.signal },
    )
    expect(await failure(started)).toMatchObject({ reason: "cancelled" })
  })
})
