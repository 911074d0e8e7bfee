import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type PluginHarness, startPlugin } from "@aide/testing/plugin"
import { afterAll, describe, expect, it } from "vitest"

/**
 * Issue 24 item 13: every code block of docs/plugins.md that is a plugin's file (marked
 * `<!-- plugin-file: <plugin>/<path> -->` right before it) is written into a folder and run as a
 * real plugin, in the default sandbox. A code block that is neither marked nor a command fails.
 */

const page = fileURLToPath(new URL("../../../../docs/plugins.md", import.meta.url))
const commandLanguages = new Set(["text", "sh", "bash", "shell"])

interface Block {
  readonly language: string
  readonly file: string | undefined
  readonly text: string
}

const blocksOf = (markdown: string): Array<Block> => {
  const blocks: Array<Block> = []
  const lines = markdown.split("\n")
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[index] as string)
    if (open === null) continue
    const indent = open[1] as string
    const body: Array<string> = []
    let end = index + 1
    while (end < lines.length && (lines[end] as string).trim() !== "```")
      body.push((lines[end++] as string).slice(indent.length))
    const marker = /<!-- plugin-file: (\S+) -->/.exec(lines[index - 1] ?? "")
    blocks.push({ language: open[2] as string, file: marker?.[1], text: `${body.join("\n")}\n` })
    index = end
  }
  return blocks
}

// Stands in for the internet: the weather API answers with the city it was asked about.
const requested: Array<string> = []
const weatherApi = {
  lookup: async () => ["93.184.216.34"],
  send: async (target: { readonly url: URL }) => {
    requested.push(target.url.href)
    return new Response(`Sunny tomorrow in ${decodeURIComponent(target.url.pathname.split("/").at(-1) ?? "")}`)
  },
}

/** How each plugin of the page is run, and what it must do. */
const scenarios: Record<string, (plugin: () => Promise<PluginHarness>) => Promise<void>> = {
  weather: async (start) => {
    const plugin = await start()
    try {
      const view = (await plugin.view()) as {
        validationErrors: Array<string>
        provides: { tools: { toolIds: Array<string>; alerts: Array<unknown> } }
      }
      expect(view.validationErrors).toEqual([])
      expect(view.provides.tools.toolIds).toEqual(["weather:forecast"])
      // No load error, and the declared tool is the one the module exports.
      expect(view.provides.tools.alerts).toEqual([])
      expect(await plugin.callTool("forecast", { city: "Oslo" })).toBe("Sunny tomorrow in Oslo")
      expect(requested).toEqual(["https://api.weather.example/v1/Oslo"])
    } finally {
      await plugin.close()
    }
  },
}

const starts: Record<string, Omit<Parameters<typeof startPlugin>[0], "directory">> = {
  weather: {
    config: { apiToken: "token", units: "metric" },
    env: { WEATHER_API_KEY: "key" },
    loader: { egress: weatherApi },
  },
}

const root = mkdtempSync(path.join(tmpdir(), "aide-docs-plugins-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe("docs/plugins.md", () => {
  const blocks = blocksOf(readFileSync(page, "utf8"))

  it("marks every code block that is not a command with the plugin file it is", () => {
    expect(blocks.length).toBeGreaterThan(1)
    const unmarked = blocks.filter((block) => block.file === undefined && !commandLanguages.has(block.language))
    expect(unmarked.map((block) => block.text.slice(0, 80))).toEqual([])
  })

  const plugins = [...new Set(blocks.flatMap((block) => (block.file === undefined ? [] : [block.file.split("/")[0]])))]

  it("has a scenario for each of its plugins", () => {
    expect(plugins.sort()).toEqual(Object.keys(scenarios).sort())
  })

  it.each(plugins)("%s runs as a real plugin in the sandbox", async (id) => {
    const directory = path.join(root, id as string)
    for (const block of blocks.filter((candidate) => candidate.file?.startsWith(`${id}/`))) {
      const file = path.join(root, block.file as string)
      mkdirSync(path.dirname(file), { recursive: true })
      writeFileSync(file, block.text)
    }
    const scenario = scenarios[id as string]
    if (scenario === undefined) throw new Error(`no scenario for ${id}`)
    await scenario(() => startPlugin({ directory, ...starts[id as string] }))
  })
})
