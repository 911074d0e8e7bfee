import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

/**
 * The kernel's import graph, read from its sources: features sit in layers, a lower one never
 * imports a higher one at run time (`import type` is free: it leaves nothing behind), and no
 * module imports itself back through others. A new folder must be given its place here.
 */

/** Lowest first: a folder may import (at run time) only from folders before it, and itself. */
const layers = [
  "ids",
  "validation",
  "storage",
  "replicas",
  "net",
  "text",
  "time",
  "metrics",
  "ratelimit",
  "models",
  "config",
  "tools",
  "threads",
  "memory",
  "chat",
  "channels",
  "inbox",
  "push",
  "scheduler",
  "mcp",
  "plugins",
  "auth",
  // Aide as an MCP server: its tools wrap the services of every area above.
  "mcpserver",
  "redis",
  "stores",
  "kernel",
  // The package's entry points and the composition (Kernel.ts, index.ts, …) sit above every folder.
  ".",
]

const src = fileURLToPath(new URL("../src/", import.meta.url))

const sourceFiles = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

// `import … from "./x.js"` and `export … from "./x.js"`, unless the whole statement is `type`
// (or every name in its braces is); `import "./x.js"` for its effects.
const fromStatement = /^(?:import|export)\s+(?!type\b)([^;]*?)\s+from\s+"(\.[^"]+)"/gms
const bareImport = /^import\s+"(\.[^"]+)"/gm
const typeOnly = (names: string) => {
  const inner = names.trim()
  if (!inner.startsWith("{")) return false
  const listed = inner
    .slice(1, inner.lastIndexOf("}"))
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean)
  return listed.length > 0 && listed.every((name) => name.startsWith("type "))
}

const runtimeImports = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  const specifiers = [
    ...[...text.matchAll(fromStatement)].filter((m) => !typeOnly(m[1] ?? "")).map((m) => m[2] ?? ""),
    ...[...text.matchAll(bareImport)].map((m) => m[1] ?? ""),
  ]
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier.replace(/\.js$/, ".ts"))))
}

const graph = new Map(sourceFiles(src).map((file) => [file, runtimeImports(file)] as const))
const folderOf = (file: string) => {
  const path = relative(src, file).split("/")
  return path.length > 1 ? (path[0] ?? ".") : "."
}
const name = (file: string) => relative(src, file)

describe("the kernel's import graph", () => {
  it("every folder has its place in the layers", () => {
    const folders = new Set([...graph.keys()].map(folderOf))
    expect([...folders].filter((folder) => !layers.includes(folder))).toEqual([])
  })

  it("no module imports a higher layer at run time", () => {
    const against = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => layers.indexOf(folderOf(target)) > layers.indexOf(folderOf(file)))
        .map((target) => `${name(file)} -> ${name(target)}`),
    )
    expect(against).toEqual([])
  })

  it("no import circle other than through `import type`", () => {
    // Tarjan's strongly connected components: any with more than one module is a circle.
    const index = new Map<string, number>()
    const low = new Map<string, number>()
    const stack: Array<string> = []
    const onStack = new Set<string>()
    const circles: Array<Array<string>> = []
    const visit = (file: string) => {
      index.set(file, index.size)
      low.set(file, index.get(file) ?? 0)
      stack.push(file)
      onStack.add(file)
      for (const target of graph.get(file) ?? []) {
        if (!graph.has(target)) continue
        if (!index.has(target)) {
          visit(target)
          low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0))
        } else if (onStack.has(target)) low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0))
      }
      if (low.get(file) !== index.get(file)) return
      const component: Array<string> = []
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member)
        component.push(name(member))
        if (member === file) break
      }
      if (component.length > 1) circles.push(component)
    }
    for (const file of graph.keys()) if (!index.has(file)) visit(file)
    expect(circles).toEqual([])
  })

  it("every import names a module that exists", () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => !graph.has(target)).map((target) => `${name(file)} -> ${name(target)}`),
    )
    expect(missing).toEqual([])
  })

  it("no source file is over 300 lines", () => {
    const long = [...graph.keys()]
      .map((file) => [name(file), readFileSync(file, "utf8").split("\n").length] as const)
      .filter(([, lines]) => lines > 300)
    expect(long).toEqual([])
  })
})
