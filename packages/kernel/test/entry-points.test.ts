import { execFile } from "node:child_process"
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { entries } from "../tsup.config.js"

// The kernel's surface (issue 33): one subpath per area, each re-exporting that area's public
// modules, so that an embedder (or a test) importing the threads contract loads neither the AI
// SDK, the MCP SDK nor SES.

const kernel = fileURLToPath(new URL("../", import.meta.url))
const root = Path.join(kernel, "../..")
const manifest = JSON.parse(readFileSync(Path.join(kernel, "package.json"), "utf8")) as {
  exports: Record<string, string | { types?: string; import?: string; default?: string }>
}
/** Subpaths built from src (`./threads`), without `.` and the non-code ones (`./runtime/*`, `./package.json`). */
const subpaths = Object.entries(manifest.exports).flatMap(([subpath, target]) =>
  subpath !== "." && typeof target === "object" && target.import?.startsWith("./dist/") ? [subpath.slice(2)] : [],
)
/** The namespaces that exist only in the barrel: the composition of the whole kernel. */
const barrelOnly = ["BuiltinTools", "Kernel"]
/** Entries that are not areas of the public surface. */
const notAreas = ["internal", "postgres", "redis"]

const exportedPaths = (entry: string) =>
  [...readFileSync(Path.join(kernel, "src", `${entry}.ts`), "utf8").matchAll(/from "\.\/([^"]+)\.js"/g)].map(
    (match) => `${match[1]}.ts`,
  )

describe("the exports map", () => {
  it("lists, for every subpath, the files tsup builds from src/<subpath>.ts", () => {
    expect(subpaths).toEqual(expect.arrayContaining(["threads", "storage", "auth", "config", "memory", "mcp"]))
    expect(entries()).toEqual(
      Object.fromEntries([["index", "src/index.ts"], ...subpaths.map((name) => [name, `src/${name}.ts`])]),
    )
    for (const name of ["index", ...subpaths]) {
      const target = manifest.exports[name === "index" ? "." : `./${name}`]
      expect(target).toEqual({
        types: `./dist/${name}.d.ts`,
        import: `./dist/${name}.js`,
        default: `./dist/${name}.js`,
      })
      expect(existsSync(Path.join(kernel, "src", `${name}.ts`)), `src/${name}.ts`).toBe(true)
    }
  })

  it("has a path in tsconfig.json for every subpath (the typecheck resolves them to src)", () => {
    const paths = readFileSync(Path.join(root, "tsconfig.json"), "utf8")
    for (const name of subpaths) expect(paths).toContain(`"@aide/kernel/${name}": ["./packages/kernel/src/${name}.ts"]`)
  })
})

describe("the areas", () => {
  it("re-export the barrel's own namespaces, and together hold all of it but the composition", async () => {
    const barrel = (await import("../src/index.js")) as Record<string, unknown>
    const inAreas = new Set<string>()
    for (const name of subpaths.filter((name) => !notAreas.includes(name))) {
      const area = (await import(`../src/${name}.ts`)) as Record<string, unknown>
      for (const [namespace, value] of Object.entries(area)) {
        expect(barrel[namespace], `${name}: ${namespace}`).toBe(value)
        inAreas.add(namespace)
      }
    }
    expect(
      Object.keys(barrel)
        .filter((namespace) => !inAreas.has(namespace))
        .sort(),
    ).toEqual(barrelOnly)
  })

  it("are the table of docs/embedding.md (storage: the names it lists besides the stores)", async () => {
    const rows = [
      ...readFileSync(Path.join(root, "docs/embedding.md"), "utf8").matchAll(
        /^\| `@aide\/kernel\/([\w-]+)` \| (.*) \|$/gm,
      ),
    ]
    expect(rows.map((row) => row[1]).sort()).toEqual(subpaths.filter((name) => name !== "internal").sort())
    for (const [, name, cell] of rows) {
      const listed = [...cell!.matchAll(/`([A-Z]\w+)`/g)].map((match) => match[1]!).sort()
      const exported = Object.keys(await import(`../src/${name}.ts`)).sort()
      if (name === "storage") expect(exported).toEqual(expect.arrayContaining(listed))
      else expect(listed, name).toEqual(exported)
    }
  })

  it("export every service Tag (a Kernel.layer slot's Tag can be named, and filled, from outside)", () => {
    const exported = new Set(["index", ...subpaths].flatMap(exportedPaths))
    const tagModules = (directory: string): ReadonlyArray<string> =>
      readdirSync(Path.join(kernel, "src", directory), { withFileTypes: true }).flatMap((entry) => {
        const path = directory === "" ? entry.name : `${directory}/${entry.name}`
        if (entry.isDirectory()) return tagModules(path)
        if (!entry.name.endsWith(".ts")) return []
        return /Context\.(Generic)?Tag\(/.test(readFileSync(Path.join(kernel, "src", path), "utf8")) ? [path] : []
      })
    const modules = tagModules("")
    expect(modules).toContain("replicas/ThreadClaims.ts")
    expect(modules.filter((path) => !exported.has(path))).toEqual([])
  })
})

describe("a kernel module", () => {
  /**
   * Two facades re-export by design: `Kernel` (the composition's public namespace: its options'
   * types, `services`) and `PluginProcess` (the sandbox as one namespace for Aide's own packages,
   * through `@aide/kernel/internal`: its descriptions and errors).
   */
  const facades = ["Kernel.ts", "plugins/sandbox/PluginProcess.ts"]

  it("exports only its own things: no re-export of another module but in the entry files", () => {
    const modules = (directory: string): ReadonlyArray<string> =>
      readdirSync(Path.join(kernel, "src", directory), { withFileTypes: true }).flatMap((entry) => {
        const path = directory === "" ? entry.name : `${directory}/${entry.name}`
        if (entry.isDirectory()) return modules(path)
        return directory !== "" && entry.name.endsWith(".ts") ? [path] : []
      })
    const reexporting = [...modules(""), "Kernel.ts"].filter((path) =>
      /^export (\*|(type )?\{[^}]*\}) from /m.test(readFileSync(Path.join(kernel, "src", path), "utf8")),
    )
    expect(reexporting.filter((path) => !facades.includes(path))).toEqual([])
  })
})

describe("@aide/kernel/internal", () => {
  it("holds only modules Aide's own packages (or the benchmarks) use", () => {
    const sources = (directory: string): ReadonlyArray<string> =>
      existsSync(directory)
        ? readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
            entry.name === "node_modules" || entry.name === "dist"
              ? []
              : entry.isDirectory()
                ? sources(Path.join(directory, entry.name))
                : /\.(ts|tsx|mjs|js)$/.test(entry.name)
                  ? [Path.join(directory, entry.name)]
                  : [],
          )
        : []
    const users = [
      ...readdirSync(Path.join(root, "packages"))
        .filter((name) => name !== "kernel")
        .flatMap((name) => sources(Path.join(root, "packages", name))),
      ...sources(Path.join(root, "examples")),
      ...sources(Path.join(root, "bench")),
    ]
      .map((file) => readFileSync(file, "utf8"))
      .filter((text) => text.includes("@aide/kernel/internal") || text.includes("dist/internal.js"))
    const namespaces = [
      ...readFileSync(Path.join(kernel, "src/internal.ts"), "utf8").matchAll(/^export \* as (\w+) from/gm),
    ].map((match) => match[1]!)
    expect(namespaces.length).toBeGreaterThan(0)
    expect(namespaces.filter((name) => !users.some((text) => new RegExp(`\\b${name}\\b`).test(text)))).toEqual([])
  })
})

describe("what an entry loads", () => {
  /** The AI SDK, its providers, the MCP SDK and SES (with the Endo packages it comes with). */
  const heavy = /\/node_modules\/(ai|@ai-sdk\/[^/]+|@modelcontextprotocol\/sdk|ses|@endo\/[^/]+)\//

  it("the store contracts of @aide/testing, the threads and storage entries: no AI SDK, MCP SDK or SES", async () => {
    const directory = mkdtempSync(Path.join(tmpdir(), "aide-entries-"))
    const record = Path.join(directory, "loaded.txt")
    try {
      const script = [
        `await import(${JSON.stringify(Path.join(root, "packages/testing/src/effect/contracts/ThreadsContract.ts"))})`,
        `await import("@aide/testing/contracts")`,
        `await import("@aide/kernel/threads")`,
        `await import("@aide/kernel/storage")`,
        `(await import("node:fs")).appendFileSync(${JSON.stringify(record)}, "--- mcp\\n")`,
        // The check's own check: what the MCP client loads on first use (mcp/ClientSdk.ts) does
        // load the MCP SDK, and is seen to.
        `await import(${JSON.stringify(Path.join(kernel, "src/mcp/internal/clientSdk.ts"))})`,
      ].join(";")
      // tsx resolves @aide/kernel/* to src through tsconfig.json's paths (cwd: the repository).
      await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          "--import",
          Path.join(kernel, "test/support/load-recorder.mjs"),
          "--input-type=module",
          "-e",
          script,
        ],
        { cwd: root, env: { ...process.env, AIDE_LOAD_RECORD: record } },
      )
      appendFileSync(record, "")
      const [light, mcp] = readFileSync(record, "utf8").split("--- mcp\n")
      const urls = light!.split("\n").filter((url) => url !== "")
      expect(urls).toContain(`file://${Path.join(kernel, "src/threads/Threads.ts")}`)
      expect(urls.filter((url) => heavy.test(url))).toEqual([])
      expect(mcp!.split("\n").some((url) => url.includes("/node_modules/@modelcontextprotocol/sdk/"))).toBe(true)
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  }, 60_000)
})
