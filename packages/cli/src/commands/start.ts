import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import { recordStart, urlOf } from "../LocalServers.js"
import { Failure, progress } from "../Output.js"
import { serverRoot, workspaceRoot } from "../Paths.js"
import { buildConsoleInBackground } from "./ConsoleBuild.js"
import { isStale, runBuild } from "./StaleBuild.js"

/**
 * Builds the server's process bundle when it is missing or older than its sources: only the
 * bundle (no type declarations, no kernel `dist`: the bundle takes the kernel from its sources),
 * so a fresh clone starts in seconds. `pnpm build` builds everything.
 */
const buildWhenStale = async (root: string) => {
  const bundle = join(root, "dist", "main.js")
  const sources = [
    join(root, "src"),
    join(root, "tsup.config.ts"),
    join(root, "package.json"),
    join(workspaceRoot, "packages", "kernel", "src"),
    join(workspaceRoot, "packages", "kernel", "package.json"),
  ]
  // An installed package (no build config beside its sources) runs the bundle it was published with.
  if (!existsSync(join(root, "tsup.config.ts"))) return bundle
  if (!isStale(bundle, sources)) return bundle
  const step = progress("building the server bundle (once, after each change of the sources)")
  const tsup = join(
    dirname(createRequire(join(root, "package.json")).resolve("tsup/package.json")),
    "dist",
    "cli-default.js",
  )
  // tsup's steps ("Build start", "Build success") are the progress shown; its file list only on failure.
  const { status, output } = await runBuild(step, tsup, [], {
    cwd: root,
    env: { ...process.env, AIDE_BUILD: "runtime" },
    steps: /Build (start|success)/,
  })
  if (status !== 0) {
    step.fail("the server build failed")
    process.stderr.write(output)
    throw new Failure("the build failed (output above)")
  }
  step.done("built the server bundle; starting")
  return bundle
}

export const start: Command = {
  name: "start",
  summary: "build the server and the web console when their sources changed, then run it",
  usage: `aide start

Builds the server bundle when it is missing or older than its sources (with progress), then runs
the server in this process; the web console is at /app/, built in the background when stale
(/app/ says "building…" until it is ready; the API answers meanwhile). Settings are environment variables (docs/configuration.md): PORT, HOST,
AIDE_DATA_DIR (default ./.aide in the directory the command was run from), DATABASE_URL…
Ctrl-C stops it (docs/operations.md, "Shutdown").`,
  run: async (argv) => {
    parse(argv, {})
    const root = serverRoot()
    if (root === undefined) throw new Failure("the server package (packages/server) was not found beside the CLI")
    const bundle = await buildWhenStale(root)
    // The console builds while the server starts: the API does not wait for it.
    void buildConsoleInBackground()
    // Run from pnpm, the working directory is the package's: keep the data where the user ran the command.
    process.env.AIDE_DATA_DIR ??= join(process.env.INIT_CWD ?? process.cwd(), ".aide")
    // So aide doctor and aide backup find this server's data (the API never reveals its paths).
    const port = Number(process.env.PORT ?? 4111)
    if (port > 0) {
      try {
        recordStart(urlOf(process.env.HOST ?? "127.0.0.1", port), process.env.AIDE_DATA_DIR)
      } catch {
        // A config folder it cannot write only costs doctor and backup their default: never the start.
      }
    }
    await import(pathToFileURL(bundle).href)
    // The server now runs until a signal, and exits with its own status.
    return 0
  },
}
