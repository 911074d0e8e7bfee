import { fileURLToPath } from "node:url"
import { type PluginHarness, startPlugin } from "@aide/testing/plugin"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// The plugin runs as it would in Aide: found through its folder, enabled, in its sandbox process.
const directory = fileURLToPath(new URL("..", import.meta.url))

describe("the hello plugin", () => {
  let plugin: PluginHarness
  beforeAll(async () => {
    plugin = await startPlugin({
      directory,
      config: { greeting: "Good morning" },
      // The agent's model run: first it calls the tool, then it answers.
      turns: [{ toolCalls: [{ name: "hello_greet", arguments: { name: "Ada" } }] }, { text: "I greeted Ada." }],
    })
  })
  afterAll(() => plugin?.close())

  it("greets through its sandboxed tool, with its settings", async () => {
    const result = (await plugin.callTool("greet", { name: "Grace" })) as { greeting: string; at: string }
    expect(result.greeting).toBe("Good morning, Grace!")
    expect(Number.isNaN(Date.parse(result.at))).toBe(false)
  })

  it("refuses an input its schema does not allow, before the sandbox sees it", async () => {
    await expect(plugin.callTool("greet", { name: "" })).rejects.toThrow(/invalid input/)
  })

  it("runs its agent: the delegate calls the tool and reports each step", async () => {
    const report = (await plugin.runAgent("greeter", "Greet Ada")) as {
      status: string
      text: string
      steps: ReadonlyArray<{ tool: string; output: { greeting: string } }>
    }
    expect(report.status).toBe("done")
    expect(report.text).toBe("I greeted Ada.")
    expect(report.steps.map((step) => step.output.greeting)).toEqual(["Good morning, Ada!"])
  })

  it("is listed with its tool and agent, as its manifest declares them (no mismatch alert)", async () => {
    const view = (await plugin.view()) as {
      enabled: boolean
      provides: {
        tools: { toolIds: string[]; alerts: unknown[] }
        agents: { agentIds: string[]; alerts: unknown[] }
      }
    }
    expect(view.enabled).toBe(true)
    expect(view.provides.tools.toolIds).toEqual(["hello:greet"])
    expect(view.provides.agents.agentIds).toEqual(["hello:greeter"])
    expect(view.provides.tools.alerts).toEqual([])
    expect(view.provides.agents.alerts).toEqual([])
  })
})
