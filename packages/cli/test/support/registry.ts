/**
 * A local npm registry for the tests that install Aide as users do (registry.test.ts): Verdaccio
 * 6.8.0 (the last release that runs on Node 20, STACK.md), on a free loopback port, its storage in
 * a temporary folder, `@aide/*` served only from what the test publishes and everything else
 * proxied to the public registry. Plus what every npm call of those tests shares: the registry,
 * a warm cache, and better-sqlite3's binary.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"

export interface Registry {
  readonly url: string
  /** `npm_config_*` for every npm call: this registry only, the shared cache, no audit or fund. */
  readonly env: NodeJS.ProcessEnv
  readonly stop: () => Promise<void>
}

/**
 * npm's cache, kept between runs (installs then fetch only metadata; tarballs are found by their
 * integrity whatever registry served them). `AIDE_NPM_CACHE` names another folder.
 */
export const npmCache = process.env.AIDE_NPM_CACHE ?? join(tmpdir(), "aide-npm-cache")

/**
 * Tarballs are found in the cache by their integrity whatever the registry's port, but each run's
 * package documents are cached under its own port (Verdaccio writes its address into them): about
 * 80 MB a run that no later run reads. Past 1.5 GB the cache starts again, from empty.
 */
const boundCache = () => {
  const kilobytes = existsSync(npmCache)
    ? Number(execFileSync("du", ["-sk", npmCache], { encoding: "utf8" }).split("\t")[0])
    : 0
  if (kilobytes > 1.5 * 1024 * 1024) rmSync(npmCache, { recursive: true, force: true })
  mkdirSync(npmCache, { recursive: true })
}

/** Asynchronous: a minutes-long install must not block the worker (vitest's RPC times out). */
export const run = async (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<string> => {
  try {
    const result = await promisify(execFile)(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    })
    return result.stdout
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string }
    // The command's own output says why (npm's error lines are on stderr).
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}) failed:\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`)
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const config = (storage: string) => `storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(join(storage, "htpasswd"))}
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    timeout: 60s
packages:
  # Never proxied: an @aide/* missing here must fail, not come from the public registry.
  "@aide/*":
    access: $all
    publish: $all
  "**":
    access: $all
    publish: $all
    proxy: npmjs
log: { type: stdout, format: pretty, level: warn }
`

/** Starts Verdaccio (the root's devDependency) and waits until it answers. */
export const startRegistry = async (root: string, work: string): Promise<Registry> => {
  const storage = join(work, "registry")
  mkdirSync(storage, { recursive: true })
  writeFileSync(join(storage, "config.yaml"), config(storage))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/`
  const bin = join(root, "node_modules", "verdaccio", "bin", "verdaccio")
  // npm's CA file (a TLS-inspecting proxy's, where there is one) is Verdaccio's too, for its uplink.
  const cafile = (await run("npm", ["config", "get", "cafile"], work)).trim()
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, "--config", join(storage, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    {
      cwd: storage,
      env: { ...process.env, ...(existsSync(cafile) ? { NODE_EXTRA_CA_CERTS: cafile } : {}) },
      stdio: ["ignore", "pipe", "pipe"],
    },
  )
  let output = ""
  child.stdout?.on("data", (chunk) => {
    output += chunk
  })
  child.stderr?.on("data", (chunk) => {
    output += chunk
  })
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited:\n${output}`)
    if (Date.now() - started > 30_000) throw new Error(`verdaccio did not answer in 30 s:\n${output}`)
    const ping = await fetch(`${url}-/ping`).catch(() => undefined)
    if (ping?.ok) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  boundCache()
  const env: NodeJS.ProcessEnv = {
    npm_config_registry: url,
    // Publishing needs a token; Verdaccio's `publish: $all` accepts any.
    [`npm_config_//127.0.0.1:${port}/:_authToken`]: "registry-test",
    npm_config_cache: npmCache,
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
    npm_config_yes: "true",
    // A registry connection that stalls is given up on (and retried) after a minute, not five.
    npm_config_fetch_timeout: "60000",
  }
  const stop = async () => {
    if (child.exitCode !== null) return
    child.kill("SIGTERM")
    await new Promise((resolve) => child.once("exit", resolve))
  }
  return { url, env, stop }
}

export interface Workspace {
  /** `@aide/cli` → its folder, for each package that is not private. */
  readonly published: ReadonlyMap<string, string>
  readonly version: (name: string) => string
}

const manifest = (folder: string) =>
  JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
    name: string
    version: string
    private?: boolean
  }

/** The workspace's packages that are published: every `packages/*` not marked `private`. */
export const workspacePackages = (root: string): Workspace => {
  const published = new Map<string, string>()
  const versions = new Map<string, string>()
  for (const name of readdirSync(join(root, "packages"))) {
    const folder = join(root, "packages", name)
    if (!existsSync(join(folder, "package.json"))) continue
    const { name: packageName, version, private: isPrivate } = manifest(folder)
    versions.set(packageName, version)
    if (isPrivate !== true) published.set(packageName, folder)
  }
  return { published, version: (name) => versions.get(name) ?? "" }
}

/**
 * `pnpm pack` of every published package (it rewrites `workspace:` ranges to versions), then
 * `npm publish` of each tarball. The builds are those `pnpm build` left (CI builds before the
 * tests): one recursive pack with scripts off (the client's `prepare` would rebuild it); the
 * server packs on its own, with its prepack script, which copies the console in.
 */
export const packAndPublish = async (
  root: string,
  workspace: Workspace,
  packs: string,
  registry: Registry,
): Promise<ReadonlyMap<string, string>> => {
  const pnpm = ["-y", "pnpm@10.20.0"]
  const names = [...workspace.published.keys()]
  const filters = names.filter((name) => name !== "@aide/server").flatMap((name) => ["--filter", name])
  await Promise.all([
    run("npx", [...pnpm, "-r", ...filters, "--config.ignore-scripts=true", "pack", "--pack-destination", packs], root),
    run("npx", [...pnpm, "pack", "--pack-destination", packs], workspace.published.get("@aide/server")!),
  ])
  const tarballs = new Map(
    names.map((name) => [
      name,
      join(packs, `${name.replace(/^@/, "").replace("/", "-")}-${workspace.version(name)}.tgz`),
    ]),
  )
  await Promise.all([...tarballs.values()].map((tarball) => run("npm", ["publish", tarball], packs, registry.env)))
  return tarballs
}

/**
 * better-sqlite3's install script (`prebuild-install || node-gyp rebuild`) downloads a prebuilt
 * binary from GitHub, which users can reach and this machine cannot; the fallback compiles for a
 * minute and a half per install. The workspace compiled the same version already: it is put
 * where prebuild-install looks before downloading (its cache, `<npm cache>/_prebuilds`), named by
 * the URL it would download, so each install finds "its download" as a user's would. When the
 * registry resolves another version than the workspace's, nothing is put there and installs
 * compile.
 */
export const seedSqlitePrebuild = async (root: string, registry: Registry, work: string): Promise<boolean> => {
  // The server depends on the driver (the kernel only offers it, an optional peer).
  const sqlite = dirname(
    createRequire(join(root, "packages", "server", "package.json")).resolve("better-sqlite3/package.json"),
  )
  const pkg = JSON.parse(readFileSync(join(sqlite, "package.json"), "utf8")) as { version: string; name: string }
  const range = (manifest(join(root, "packages", "server")) as unknown as { dependencies: Record<string, string> })
    .dependencies["better-sqlite3"]!
  const resolved = JSON.parse(
    await run("npm", ["view", `better-sqlite3@${range}`, "version", "--json"], work, registry.env),
  ) as string | Array<string>
  // The highest, which npm installs (npm view lists them unordered).
  const numbers = (version: string) => version.split(".").map(Number)
  const latest = (Array.isArray(resolved) ? resolved : [resolved])
    .sort((a, b) => {
      const [x, y] = [numbers(a), numbers(b)]
      return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!
    })
    .at(-1)
  const binary = join(sqlite, "build", "Release", "better_sqlite3.node")
  if (latest !== pkg.version || !existsSync(binary)) return false
  const util = createRequire(join(sqlite, "package.json"))("prebuild-install/util") as {
    getDownloadUrl: (opts: unknown) => string
    cachedPrebuild: (url: string) => string
  }
  // prebuild-install's defaults (its rc.js): runtime node, tag prefix "v", this platform.
  const url = util.getDownloadUrl({
    pkg,
    runtime: "node",
    platform: process.platform,
    arch: process.arch,
    "tag-prefix": "v",
  })
  const previous = process.env.npm_config_cache
  process.env.npm_config_cache = npmCache
  const cached = util.cachedPrebuild(url)
  if (previous === undefined) delete process.env.npm_config_cache
  else process.env.npm_config_cache = previous
  if (existsSync(cached)) return true
  mkdirSync(dirname(cached), { recursive: true })
  // The release asset's layout: build/Release/better_sqlite3.node. Copied first: pnpm hard-links
  // the file into other installs, whose links change its ctime while tar reads it.
  const asset = join(work, "prebuild")
  mkdirSync(join(asset, "build", "Release"), { recursive: true })
  copyFileSync(binary, join(asset, "build", "Release", "better_sqlite3.node"))
  await run("tar", ["-czf", `${cached}.${process.pid}`, "-C", asset, "build/Release/better_sqlite3.node"], work)
  await run("mv", [`${cached}.${process.pid}`, cached], work)
  return true
}
