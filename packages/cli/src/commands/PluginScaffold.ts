import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, dirname, join, relative, resolve } from "node:path"
// Read when the CLI is built (esbuild inlines them): a published CLI names the versions released
// with it, and `bin/aide.mjs` rebuilds a clone's CLI when either file changes.
import pluginPackage from "../../../plugin/package.json" with { type: "json" }
import testingPackage from "../../../testing/package.json" with { type: "json" }
import { Failure, UsageError } from "../Output.js"
import { folderOf, isPluginId, notAnId } from "../PluginIds.js"

/**
 * What a scaffolded plugin installs to run its test: semver ranges, so plain npm installs them
 * from the registry, and pnpm links a clone's own packages (`linkWorkspacePackages`). The harness
 * needs no native module (docs/plugins.md, "Testing").
 */
export const scaffoldDevDependencies = {
  "@aide/plugin": `^${pluginPackage.version}`,
  "@aide/testing": `^${testingPackage.version}`,
  vitest: testingPackage.peerDependencies.vitest,
}

/** `*` one path segment, `**` any; the rest literal. */
const globMatches = (glob: string, path: string) =>
  new RegExp(
    `^${glob
      .replace(/\/+$/, "")
      .split("**")
      .map((part) =>
        part
          .split("*")
          .map((text) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join("[^/]*"),
      )
      .join(".*")}$`,
  ).test(path)

/**
 * The root of the pnpm workspace `folder` falls in (a clone of Aide, with it under `examples/`),
 * if any: there pnpm installs its dependencies (linked), elsewhere npm does.
 */
export const workspaceOf = (folder: string): string | undefined => {
  for (let dir = dirname(folder); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, "pnpm-workspace.yaml")
    if (!existsSync(file)) continue
    const text = readFileSync(file, "utf8")
    const list = /^packages:\s*\n((?:[ \t]+-.*\n?|[ \t]*#.*\n?)*)/m.exec(text)?.[1] ?? ""
    const globs = [...list.matchAll(/^[ \t]+-[ \t]*["']?([^"'#\n]+?)["']?[ \t]*$/gm)].map((match) => match[1] ?? "")
    const path = relative(dir, folder)
    return globs.some((glob) => !glob.startsWith("!") && globMatches(glob, path)) ? dir : undefined
  }
  return undefined
}

/** The folder's path in the clone: where it is, or where it would go (`examples/<id>`). */
const inClone = (folder: string) => {
  const workspace = workspaceOf(folder)
  return workspace === undefined ? join("examples", basename(folder)) : relative(workspace, folder)
}

/** The commands that install and run the plugin's test, for where it was written. */
export const testCommands = (folder: string): string => {
  const workspace = workspaceOf(folder)
  const shown = (path: string) => relative(process.cwd(), path) || "."
  if (workspace === undefined) return `cd ${shown(folder)} && npm install && npm test`
  const inRoot = workspace === process.cwd() ? "" : `cd ${shown(workspace)} && `
  return `${inRoot}npx -y pnpm@10.20.0 install && npx vitest run ${relative(workspace, folder)}`
}

const manifest = (id: string) => ({
  manifestVersion: 1,
  id,
  name: id,
  description: "What this plugin gives the assistant (written by aide plugin new: change it)",
  version: "0.1.0",
  aide: ">=0.1.0 <1",
  provides: {
    tools: [{ entry: "src/tools.js", requireApproval: false }],
  },
})

const tools = `// @ts-check
// The plugin's tools: the default export is a tool or an array of tools (docs/plugins.md, "Tools").
// It runs in the compartment sandbox: no process, no require, no network unless the manifest
// grants them. (SES refuses any source text that looks like a dynamic import, comments
// included: import types with the JSDoc @import tag, as below.)
/** @import { ToolDefinition } from "@aide/plugin" */

/** @type {ToolDefinition<{ text: string }, { words: number; longest: string }>} */
const countWords = {
  id: "count_words",
  name: "Count words",
  description: "Counts the words of a text and names its longest word",
  parameters: {
    type: "object",
    properties: { text: { type: "string", minLength: 1, maxLength: 100000, description: "The text" } },
    required: ["text"],
    additionalProperties: false,
  },
  execute: ({ text }) => {
    const words = text.split(/\\s+/).filter((word) => word !== "")
    const longest = words.reduce((best, word) => (word.length > best.length ? word : best), "")
    return { words: words.length, longest }
  },
}

export default [countWords]
`

const test = (id: string) => `import { fileURLToPath } from "node:url"
import { type PluginHarness, startPlugin } from "@aide/testing/plugin"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// The plugin runs as it does in Aide: found through its folder, enabled, in its sandbox process.
const directory = fileURLToPath(new URL("..", import.meta.url))

describe("the ${id} plugin", () => {
  let plugin: PluginHarness
  beforeAll(async () => {
    plugin = await startPlugin({ directory })
  })
  afterAll(() => plugin?.close())

  it("counts words through its sandboxed tool", async () => {
    expect(await plugin.callTool("count_words", { text: "the quick brown fox" })).toEqual({
      words: 4,
      longest: "quick",
    })
  })

  it("refuses an input its schema does not allow, before the sandbox sees it", async () => {
    await expect(plugin.callTool("count_words", { text: "" })).rejects.toThrow(/invalid input/)
  })

  it("is listed with its tool", async () => {
    const view = (await plugin.view()) as { provides: { tools: { toolIds: string[] } } }
    expect(view.provides.tools.toolIds).toEqual(["${id}:count_words"])
  })
})
`

const readme = (id: string, folder: string, inClone: string) => `# ${id}

An Aide plugin, scaffolded by \`aide plugin new ${id}\`: one tool,
\`count_words\`, which the model sees as \`${id.replace(/[^A-Za-z0-9_-]/g, "_")}_count_words\`.

- \`aide.plugin.json\` — the manifest: id, name, the tool entry (docs/plugins.md, "The manifest").
- \`src/tools.js\` — the tool; it runs in Aide's compartment sandbox (docs/plugin-sandbox.md).
- \`test/${id}.test.ts\` — runs the plugin in a real kernel with \`@aide/testing/plugin\`.

## Test it

\`\`\`text
npm install
npm test
\`\`\`

The test runs the plugin in a real Aide kernel, in its sandbox, on in-memory stores:
\`@aide/testing\` installs no database driver and nothing compiles (no native module, no install
script). In a clone of Aide with this folder under \`examples/\`, the workspace links the clone's
own packages instead: \`npx -y pnpm@10.20.0 install\`, then \`npx vitest run ${inClone}\` from the
clone's root.

## Develop it against a running server

\`\`\`text
aide plugin dev ${folder}
\`\`\`

enables the plugin and restarts it each time a file of this folder is saved (docs/cli.md,
"aide plugin new|dev"). Without it, an edited plugin keeps running its old code until it is
disabled and enabled again.
`

const packageJson = (id: string) => ({
  name: `aide-plugin-${id.replace(/[^a-z0-9-]/g, "-")}`,
  version: "0.1.0",
  private: true,
  type: "module",
  description: "An Aide plugin",
  files: ["aide.plugin.json", "src"],
  scripts: { test: "vitest run" },
  devDependencies: scaffoldDevDependencies,
})

/** Writes a new plugin's folder `<parent>/<id>`: manifest, a working tool, its test, a README. */
export const scaffold = (id: string, parent: string): { readonly folder: string; readonly files: Array<string> } => {
  if (!isPluginId(id)) throw new UsageError(notAnId(id))
  const folder = folderOf(resolve(parent), id)
  if (existsSync(folder)) throw new Failure(`${folder} exists already: choose another id or --dir`)
  const shown = relative(process.cwd(), folder) || "."
  const files: Record<string, string> = {
    "aide.plugin.json": `${JSON.stringify(manifest(id), null, 2)}\n`,
    "package.json": `${JSON.stringify(packageJson(id), null, 2)}\n`,
    "src/tools.js": tools,
    [`test/${id}.test.ts`]: test(id),
    "README.md": readme(id, shown, inClone(folder)),
  }
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(folder, name, ".."), { recursive: true })
    writeFileSync(join(folder, name), text)
  }
  return { folder, files: Object.keys(files) }
}
