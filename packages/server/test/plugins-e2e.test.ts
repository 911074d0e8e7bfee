import { cpSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, chat, chunksOf, eventually, startChatServer } from "./support/chat.js"
import { request } from "./support/server.js"

const example = fileURLToPath(new URL("../../../examples/hello-plugin", import.meta.url))

/** The one path an owner takes: install into the data folder, enable, chat. No restart. */
describe("a plugin from install to chat, without a restart", () => {
  let server: ChatTestServer
  const plugin = async () => {
    const listed = await request(`${server.url}/api/plugins`, { token: server.token })
    return (listed.body.plugins as Array<any>).find((entry) => entry.id === "hello")
  }
  const patch = (body: unknown) => request(`${server.url}/api/config`, { method: "PATCH", token: server.token, body })

  beforeAll(async () => {
    server = await startChatServer()
  })
  afterAll(() => server?.close())

  it("is found once copied into <dataDir>/plugins, enabled live, and its tool runs in a chat", async () => {
    expect(await plugin()).toBeUndefined()
    cpSync(example, join(server.dataDir, "plugins", "hello"), { recursive: true })
    const found = await plugin()
    expect(found.enabled).toBe(false)
    // Before its code runs, the listing shows what its manifest declares.
    expect(found.provides.tools.toolIds).toEqual(["hello:greet"])
    expect(found.provides.tools.alerts[0].message).toMatch(/^Not loaded/)

    expect((await patch({ plugins: { hello: { enabled: true, greeting: "Hi" } } })).status).toBe(200)
    const loaded = await eventually(
      async () => {
        const entry = await plugin()
        return entry.provides.tools.alerts.some((alert: { message: string }) =>
          /^(Not loaded|Loading)/.test(alert.message),
        )
          ? undefined
          : entry
      },
      { timeoutMs: 15_000 },
    )
    expect(loaded.provides.tools).toMatchObject({
      toolIds: ["hello:greet"],
      tools: [
        { id: "hello:greet", name: "Greet", description: "Greets someone by name, with the time of the greeting" },
      ],
      sandbox: "compartment",
      permissions: { time: true },
      requireApproval: false,
    })
    expect(loaded.provides.agents.agentIds).toEqual(["hello:greeter"])
    expect(loaded.provides.agents.agents[0]).toMatchObject({
      id: "hello:greeter",
      instructions: expect.stringContaining("greet tool"),
      model: null,
      tools: [{ id: "hello:greet", name: "Greet" }],
    })

    server.model.script(
      { toolCalls: [{ name: "hello_greet", arguments: { name: "Ada" } }] },
      { text: "Said hi to Ada." },
    )
    const chunks = chunksOf(await (await chat(server, "Greet Ada")).text())
    const output = chunks.find((chunk) => chunk.type === "tool-output-available")
    expect(output.output.greeting).toBe("Hi, Ada!")
    // The model was offered the plugin's tool and its agent.
    const offered = (server.model.requests[0]!.body.tools ?? []).map((tool: any) => tool.function.name)
    expect(offered).toEqual(expect.arrayContaining(["hello_greet", "hello_agent_greeter"]))
  })

  it("runs the plugin's agent as a delegate whose steps stream, and keeps its final report", async () => {
    server.model.script(
      { toolCalls: [{ id: "delegate_1", name: "hello_agent_greeter", arguments: { task: "Greet Lin" } }] },
      // The agent's own model run: it calls the plugin's tool, then answers.
      { toolCalls: [{ name: "hello_greet", arguments: { name: "Lin" } }] },
      { text: "I greeted Lin." },
      { text: "The greeter greeted Lin." },
    )
    const response = await chat(server, "Have the greeter greet Lin")
    const threadId = response.headers.get("x-thread-id")!
    const outputs = chunksOf(await response.text()).filter(
      (chunk) => chunk.type === "tool-output-available" && chunk.toolCallId === "delegate_1",
    )
    expect(outputs.map((chunk) => [chunk.preliminary === true, chunk.output.status])).toEqual([
      [true, "running"],
      [true, "done"],
      [false, "done"],
    ])
    expect(outputs[0].output.steps[0]).toMatchObject({ tool: "hello_greet", output: { greeting: "Hi, Lin!" } })
    const final = outputs.at(-1).output
    expect(final.text).toBe("I greeted Lin.")
    const detail = await request(`${server.url}/api/threads/${threadId}`, { token: server.token })
    const stored = JSON.stringify(detail.body)
    expect(stored).toContain("I greeted Lin.")
    expect(stored).toContain("The greeter greeted Lin.")
  })

  it("follows the owner's approval override per tool, then stops when disabled", async () => {
    expect((await patch({ plugins: { hello: { tools: { greet: { requireApproval: true } } } } })).status).toBe(200)
    // Restarted with the new settings: listed again once loaded.
    await eventually(
      async () =>
        (await plugin()).provides.tools.alerts.some((alert: any) => alert.message === "Loading") ? undefined : true,
      { timeoutMs: 15_000 },
    )
    server.model.script({ toolCalls: [{ name: "hello_greet", arguments: { name: "Bob" } }] })
    const paused = chunksOf(await (await chat(server, "Greet Bob")).text())
    expect(paused.some((chunk) => chunk.type === "tool-approval-request")).toBe(true)
    expect(paused.some((chunk) => chunk.type === "tool-output-available")).toBe(false)

    const bad = await patch({ plugins: { hello: { tools: { greet: { requireApproval: "yes" } } } } })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.body)).toContain("plugins.hello.tools.greet.requireApproval: must be true or false")

    expect((await patch({ plugins: { hello: { enabled: false } } })).status).toBe(200)
    const disabled = await plugin()
    expect(disabled.enabled).toBe(false)
    expect(disabled.provides.tools.alerts[0].message).toMatch(/^Not loaded/)
    server.model.script({ text: "No tools." })
    await (await chat(server, "anything")).text()
    const lastOffer = server.model.requests.at(-1)!.body.tools ?? []
    expect(lastOffer.map((tool: any) => tool.function.name)).not.toContain("hello_greet")
  })
})
