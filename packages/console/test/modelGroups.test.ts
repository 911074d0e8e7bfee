import type { Plugin, Provider } from "@aide/client"
import { describe, expect, it } from "vitest"
import { groupModels, setupHint } from "../src/modelGroups.js"
import { modelToolName, pluginState } from "../src/pluginForm.js"

const provider = (id: string, configured: boolean, models: ReadonlyArray<string>, envVars: Array<string> = []) =>
  ({ id, name: id.toUpperCase(), models, configured, docUrl: "", gateway: null, envVars }) as Provider

describe("the model picker's groups", () => {
  const providers = [
    provider("openai", false, ["gpt-4.1-mini", "gpt-4.1"], ["OPENAI_API_KEY"]),
    provider("local", true, ["llama3.2", "qwen3"]),
    provider("groq", true, ["llama-3.3-70b"]),
  ]
  it("lists the configured providers' models by provider, the others apart", () => {
    const { ready, unready } = groupModels(providers, "")
    expect(ready.map((g) => [g.provider.id, g.models])).toEqual([
      ["local", ["llama3.2", "qwen3"]],
      ["groq", ["llama-3.3-70b"]],
    ])
    expect(unready.map((p) => p.id)).toEqual(["openai"])
    expect(setupHint(unready[0]!)).toBe("set OPENAI_API_KEY")
  })
  it("searches model ids and provider names, case-insensitively", () => {
    expect(groupModels(providers, "LLAMA").ready.map((g) => [g.provider.id, g.models])).toEqual([
      ["local", ["llama3.2"]],
      ["groq", ["llama-3.3-70b"]],
    ])
    expect(groupModels(providers, "groq").ready.map((g) => g.provider.id)).toEqual(["groq"])
    expect(groupModels(providers, "gpt").ready).toEqual([])
  })
})

describe("a plugin's state and tool names", () => {
  const plugin = (overrides: Partial<Plugin>) =>
    ({ id: "weather", enabled: true, validationErrors: [], provides: {}, ...overrides }) as Plugin
  const tools = (alerts: Array<{ level: string; message: string }>) =>
    ({ tools: { toolIds: [], tools: [], sandbox: "compartment", requireApproval: true, alerts } }) as never
  it("reads where a plugin is from its alerts", () => {
    expect(pluginState(plugin({ enabled: false }))).toBe("disabled")
    expect(pluginState(plugin({ validationErrors: ["x"] }))).toBe("blocked")
    expect(pluginState(plugin({ provides: tools([{ level: "info", message: "Loading" }]) }))).toBe("loading")
    expect(
      pluginState(
        plugin({
          provides: tools([{ level: "info", message: "Not loaded: the plugin is disabled or not yet started" }]),
        }),
      ),
    ).toBe("loading")
    expect(pluginState(plugin({ provides: tools([{ level: "error", message: "Not loaded: boom" }]) }))).toBe("failed")
    expect(pluginState(plugin({ provides: tools([]) }))).toBe("loaded")
  })
  it("names a tool as the kernel's toolId does", () => {
    expect(modelToolName("weather", "weather:forecast")).toBe("weather_forecast")
    expect(modelToolName("weather", "weather:a.b")).toBeUndefined()
  })
})
