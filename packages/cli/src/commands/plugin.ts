import { spawn } from "node:child_process"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import * as Credentials from "../Credentials.js"
import { dataDirFor } from "../LocalServers.js"
import { bold, dim, Failure, green, print, printJson, progress, red, UsageError, yellow } from "../Output.js"
import { isPluginId, notAnId } from "../PluginIds.js"
import { printable } from "../Printable.js"
import { connectLoggedIn } from "../Session.js"
import { dev } from "./PluginDev.js"
import { scaffold, testCommands } from "./PluginScaffold.js"

const readJson = (file: string): any => {
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return undefined
  }
}

const dependenciesOf = (prefix: string): Record<string, string> =>
  readJson(join(prefix, "package.json"))?.dependencies ?? {}

/** `@scope/name@^1` → `@scope/name`; a path, URL or tarball → undefined (read from package.json instead). */
const nameOf = (spec: string) => {
  const match = /^(@[^/@]+\/[^/@]+|[^./@][^/@]*)(@.*)?$/.exec(spec)
  return match?.[1]
}

const npm = (args: ReadonlyArray<string>, onLine: (line: string) => void) =>
  new Promise<{ readonly status: number | null; readonly output: string }>((resolve) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", [...args], {
      stdio: ["ignore", "pipe", "pipe"],
    })
    let output = ""
    const collect = (chunk: Buffer) => {
      const text = chunk.toString("utf8")
      output += text
      for (const line of text.split("\n")) if (line.trim() !== "" && !line.includes("Unknown user config")) onLine(line)
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    child.on("error", (error) => resolve({ status: 1, output: String(error) }))
    child.on("close", (status) => resolve({ status, output }))
  })

const add = async (argv: ReadonlyArray<string>) => {
  const { values, positionals } = parse(argv, {}, 2)
  const spec = positionals[1]
  if (spec === undefined) throw new UsageError("which package? aide plugin add <package>")
  const prefix = join(dataDirFor(values["data-dir"], Credentials.serverUrl(values.url)).dir, "plugins")
  mkdirSync(prefix, { recursive: true, mode: 0o700 })
  const before = dependenciesOf(prefix)
  const step = progress(`installing ${spec} into ${prefix}`)
  // As docs/plugins.md documents it: no install scripts, a folder of its own.
  const result = await npm(
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", prefix, spec],
    (line) => step.update(printable(line.trim())),
  )
  if (result.status !== 0) {
    step.fail(`npm could not install ${spec}`)
    process.stderr.write(printable(result.output, { multiline: true }))
    throw new Failure("the install failed (npm's output above)")
  }
  step.done(`installed ${spec}`)
  const after = dependenciesOf(prefix)
  const name = Object.keys(after).find((key) => before[key] === undefined) ?? nameOf(spec)
  const folder = name === undefined ? undefined : join(prefix, "node_modules", name)
  const manifest = folder === undefined ? undefined : readJson(join(folder, "aide.plugin.json"))
  if (manifest === undefined) {
    if (values.json) printJson({ package: name ?? spec, plugin: null })
    else print(`${red("✗")} ${printable(name ?? spec)} has no aide.plugin.json at its root: it is not an Aide plugin`)
    return 1
  }
  if (values.json) {
    printJson({ package: name, folder, plugin: manifest })
    return 0
  }
  // All of it the package's words, unchecked (the server checks the manifest): printable only.
  const id = printable(manifest.id)
  const provides = printable(Object.keys(manifest.provides ?? {}).join(", "))
  print(
    `${green("✓")} plugin ${bold(id)} — ${printable(manifest.name)}${manifest.version ? ` ${printable(manifest.version)}` : ""}`,
  )
  if (manifest.description) print(`  ${printable(manifest.description)}`)
  if (provides !== "") print(`  provides: ${provides}`)
  for (const variable of manifest.envVars ?? [])
    print(`  needs ${printable(variable.name)}${variable.required ? "" : " (optional)"} in the server's environment`)
  const required = (manifest.configFields ?? []).filter((field: any) => field.required)
  for (const field of required) print(`  needs plugins.${id}.${printable(field.key)} (${printable(field.label)})`)
  if (!isPluginId(manifest.id)) {
    print(`${red("✗")} ${notAnId(manifest.id)}: the server will not load it`)
    return 1
  }
  print(`\nEnable it (no restart needed):\n  aide config set plugins.${id}.enabled true`)
  return 0
}

const list = async (argv: ReadonlyArray<string>) => {
  const { values } = parse(argv, {}, 1)
  const { client } = connectLoggedIn(values.url)
  const plugins = await client.plugins.list()
  if (values.json) {
    printJson({ plugins })
    return 0
  }
  if (plugins.length === 0) print(dim("no plugins found (aide plugin add <package> installs one)"))
  for (const plugin of plugins) {
    // A plugin with problems is skipped even when enabled: its problems follow, one per line.
    const state = plugin.enabled
      ? plugin.validationErrors.length > 0
        ? yellow("enabled, skipped")
        : green("enabled")
      : dim("disabled")
    // Names, versions and problems are the plugins' words, relayed by the server: printable only.
    const version = plugin.version ? ` ${printable(plugin.version)}` : ""
    print(`${bold(printable(plugin.id))}  ${printable(plugin.name)}${version}  ${state}`)
    for (const problem of plugin.validationErrors) print(`  ${yellow("!")} ${printable(problem)}`)
  }
  return 0
}

const create = (argv: ReadonlyArray<string>) => {
  const { values, positionals } = parse(argv, { dir: { type: "string" } }, 2)
  const id = positionals[1]
  if (id === undefined) throw new UsageError("which id? aide plugin new <id>")
  const { folder, files } = scaffold(id, values.dir ?? ".")
  if (values.json) {
    printJson({ id, folder, files })
    return 0
  }
  print(`${green("✓")} wrote the plugin ${bold(id)} in ${folder}:`)
  for (const file of files) print(`  ${file}`)
  print(`\nTest it: ${testCommands(folder)}`)
  print(`Run it live, reloaded on each save: aide plugin dev ${folder}`)
  return 0
}

export const plugin: Command = {
  name: "plugin",
  summary: "plugins: add <package>, list, new <id> (a scaffold), dev <dir> (reload on save)",
  usage: `aide plugin add <package> [--data-dir <dir>] [--json] | aide plugin list [--json]
       aide plugin new <id> [--dir <parent>] [--json] | aide plugin dev [<dir>] [--data-dir <dir>]

add    npm install --ignore-scripts --prefix <dataDir>/plugins <package> (docs/plugins.md), then
       shows the plugin found in it and how to enable it. <package> is anything npm installs:
       a name, name@version, a tarball, a folder. Exit 1 when it is not an Aide plugin.
list   the plugins the server found (GET /api/plugins), enabled or not, with their problems.
new    writes <parent>/<id>/ (default parent: .): aide.plugin.json, src/tools.js with a working
       tool, test/<id>.test.ts with @aide/testing/plugin, package.json and a README.
dev    enables the plugin in <dir> (default: .) on the logged-in server and restarts it on each
       save, printing whether it loaded and what it provides; Ctrl-C stops watching. A server
       that does not list the plugin gets a link to <dir> in its plugins folder (its data
       directory: as for aide backup). Each restart sets plugins.<id>.devReload.`,
  run: async (argv) => {
    const { positionals, values } = parse(argv, { dir: { type: "string" } }, 2)
    const verb = positionals[0]
    if (verb === "add") return add(argv)
    if (verb === "list") return list(argv)
    if (verb === "new") return create(argv)
    if (verb === "dev") return dev(positionals[1] ?? ".", values)
    throw new UsageError(verb === undefined ? "add, list, new or dev?" : `unknown subcommand: ${verb}`)
  },
}
