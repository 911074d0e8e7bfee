import { existsSync, mkdirSync, readFileSync, symlinkSync, watch } from "node:fs"
import { join, resolve, sep } from "node:path"
import type { AideClient } from "@aide/client"
import * as Credentials from "../Credentials.js"
import { dataDirFor } from "../LocalServers.js"
import { bold, dim, Failure, green, print, red, yellow } from "../Output.js"
import { folderOf, isPluginId, notAnId } from "../PluginIds.js"
import { printable } from "../Printable.js"
import { connectLoggedIn } from "../Session.js"

type PluginEntry = Awaited<ReturnType<AideClient["plugins"]["list"]>>[number]

/**
 * The config key `aide plugin dev` bumps at each save. Any change of `plugins.<id>` restarts the
 * plugin (PluginLoader: a start is identified by folder, manifest and settings), and the config
 * keeps keys a manifest does not declare: so a new value of this key is a restart, with no
 * server-side hook. The plugin sees it in `context.config` and can ignore it.
 */
export const revisionKey = "devReload"

/** The manifest's id, checked before anything uses it: it names a link, a config key, a plugin. */
const readId = (folder: string) => {
  const file = join(folder, "aide.plugin.json")
  if (!existsSync(file)) throw new Failure(`no aide.plugin.json in ${folder}: aide plugin new <id> writes one`)
  let id: unknown
  try {
    id = (JSON.parse(readFileSync(file, "utf8")) as { id?: unknown }).id
  } catch {
    // said below
  }
  if (id === undefined) throw new Failure(`${file} has no readable "id"`)
  if (!isPluginId(id)) throw new Failure(`${file}: ${notAnId(id)} (the server would refuse it too)`)
  return id
}

const find = async (client: AideClient, id: string) => (await client.plugins.list()).find((entry) => entry.id === id)

const alertsOf = (entry: PluginEntry) => [
  ...(entry.provides.tools?.alerts ?? []),
  ...(entry.provides.agents?.alerts ?? []),
]

const loading = (entry: PluginEntry) => alertsOf(entry).some((alert) => alert.message === "Loading")

/** Waits until the plugin is no longer "Loading" (at most 60 s), then says how its start went. */
const report = async (client: AideClient, id: string, why: string) => {
  const deadline = Date.now() + 60_000
  let entry = await find(client, id)
  while (entry !== undefined && loading(entry) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    entry = await find(client, id)
  }
  const time = new Date().toLocaleTimeString()
  if (entry === undefined) return print(`${red("✗")} ${dim(time)} ${id}: the server no longer lists it (${why})`)
  const problems = [
    ...entry.validationErrors,
    ...alertsOf(entry)
      .filter((alert) => alert.level === "error")
      .map((alert) => alert.message),
  ]
  const provided = [...(entry.provides.tools?.toolIds ?? []), ...(entry.provides.agents?.agentIds ?? [])]
  if (problems.length > 0) {
    print(`${red("✗")} ${dim(time)} ${bold(id)} did not load (${why}):`)
    // The plugin's own words (its error messages): printable, each continuation line indented.
    for (const problem of problems) print(`  ${printable(problem, { multiline: true }).replace(/\n/g, "\n  ")}`)
  } else if (loading(entry)) print(`${yellow("…")} ${dim(time)} ${bold(id)} still loading after 60 s (${why})`)
  else
    print(
      `${green("✓")} ${dim(time)} ${bold(id)} loaded (${why}): ${printable(provided.join(", ")) || "nothing provided"}`,
    )
}

/** Files whose change reloads: not dependencies, VCS data, editors' swap and backup files. */
const ignored = (file: string) =>
  file.split(sep).some((part) => part === "node_modules" || part.startsWith(".")) || /(~|\.swp|\.tmp)$/.test(file)

/**
 * Why a burst of events reloads: the files that still exist once it is quiet. Editors save
 * through a temporary file renamed over the real one (sed's `sedh1nW3r`, vim's `4913`), which is
 * gone by then and says nothing to the author; only when every name is gone were files removed.
 */
const cause = (folder: string, files: ReadonlyArray<string>): string => {
  const present = files.filter((file) => existsSync(join(folder, file)))
  if (present.length > 0) return `${printable(present.join(", "))} changed`
  return `${printable(files.join(", "))} removed`
}

export const dev = async (folderArgument: string, values: { url?: string; "data-dir"?: string }): Promise<number> => {
  const folder = resolve(folderArgument)
  const id = readId(folder)
  const { url, client } = connectLoggedIn(values.url)
  if ((await find(client, id)) === undefined) {
    // The server does not see the folder: link it into its plugins folder, when that is here.
    const dataDir = dataDirFor(values["data-dir"], Credentials.serverUrl(values.url))
    const link = folderOf(join(dataDir.dir, "plugins"), id)
    if (dataDir.local && existsSync(dataDir.dir) && !existsSync(link)) {
      mkdirSync(join(dataDir.dir, "plugins"), { recursive: true, mode: 0o700 })
      symlinkSync(folder, link, "dir")
      print(dim(`linked ${link} → ${folder} (${dataDir.source})`))
    }
    if ((await find(client, id)) === undefined)
      throw new Failure(
        `the server at ${url} does not see ${folder}: start it with AIDE_PLUGINS_PATH=${folder}, or pass --data-dir with its data directory`,
      )
  }
  let revision = Date.now()
  const reload = async (why: string) => {
    revision = Math.max(revision + 1, Date.now())
    await client.config.patch({ plugins: { [id]: { enabled: true, [revisionKey]: revision } } } as never)
    await report(client, id, why)
  }
  await reload("started")
  print(dim(`watching ${folder}: each save restarts ${id}; Ctrl-C stops watching (the plugin stays enabled)`))

  // Saves come in bursts (an editor writes, renames, touches): one reload per quiet 200 ms.
  let timer: NodeJS.Timeout | undefined
  let changed = new Set<string>()
  let running = Promise.resolve()
  const watcher = watch(folder, { recursive: true }, (_event, file) => {
    if (file === null || ignored(file.toString())) return
    changed.add(file.toString())
    clearTimeout(timer)
    timer = setTimeout(() => {
      const why = cause(folder, [...changed].sort())
      changed = new Set()
      running = running
        .then(() => reload(why))
        .catch((error) => {
          const message = error instanceof Error ? error.message : String(error)
          print(`${red("✗")} reload failed: ${printable(message, { multiline: true })}`)
        })
    }, 200)
  })
  await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()))
  clearTimeout(timer)
  watcher.close()
  await running
  print(dim(`stopped watching ${folder}`))
  return 0
}
