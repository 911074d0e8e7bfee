import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { TestProjectConfiguration } from "vitest/config"

// Tests run against the TypeScript sources, never a stale build.
// Exact matches: a plain "@aide/testing" key would also rewrite "@aide/testing/effect".
const source = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url))
/** The kernel's subpaths (`@aide/kernel/threads` → src/threads.ts), as its exports map lists them. */
const kernelSubpaths = Object.keys(
  (JSON.parse(readFileSync(source("kernel/package.json"), "utf8")) as { exports: Record<string, unknown> }).exports,
).filter((subpath) => /^\.\/[a-z]+$/.test(subpath))
const alias = [
  ...kernelSubpaths.map((subpath) => ({
    find: new RegExp(`^@aide/kernel/${subpath.slice(2)}$`),
    replacement: source(`kernel/src/${subpath.slice(2)}.ts`),
  })),
  { find: /^@aide\/kernel$/, replacement: source("kernel/src/index.ts") },
  { find: /^@aide\/client$/, replacement: source("client/src/index.ts") },
  { find: /^@aide\/server$/, replacement: source("server/src/index.ts") },
  { find: /^@aide\/plugin$/, replacement: source("plugin/src/index.ts") },
  { find: /^@aide\/testing\/effect$/, replacement: source("testing/src/effect/index.ts") },
  { find: /^@aide\/testing\/contracts$/, replacement: source("testing/src/effect/contracts/index.ts") },
  { find: /^@aide\/testing\/fixtures$/, replacement: source("testing/src/fixtures/index.ts") },
  { find: /^@aide\/testing\/plugin$/, replacement: source("testing/src/plugin/index.ts") },
  { find: /^@aide\/testing\/channels$/, replacement: source("testing/src/channels/index.ts") },
  { find: /^@aide\/testing$/, replacement: source("testing/src/index.ts") },
]

/**
 * Projects whose files share one module graph (`isolate: false`, in the threads pool; see
 * `vitest.config.ts`): each file then imports the kernel and the server once per thread instead of
 * once per file, which was most of a file's time. Only where every file passes in any order: one
 * file's module-level state (an env var, a process listener, a clock) must not reach another. The
 * kernel's files do not pass that way yet (threads.test.ts then sees another file's clock).
 */
const sharedModules = new Set(["client", "server"])

/**
 * The server's files that run the process itself (`dist/main.js`: start, signals, kill -9,
 * replicas, the docs' commands) or the whole worker (`process.chdir`, `AIDE_TEST_MODE` for the
 * files serverless-suites.test.ts imports again): a project of their own, each file in its own process.
 */
const serverProcessFiles = [
  "test/crash.test.ts",
  "test/docs-commands.test.ts",
  "test/hardening/data-dir.test.ts",
  "test/hardening/partial-answers.test.ts",
  "test/hardening/replica-failover.test.ts",
  "test/mcp-readme.test.ts",
  "test/process.test.ts",
  "test/replicas-channel.test.ts",
  "test/replicas-discord.test.ts",
  "test/replicas.test.ts",
  "test/serverless-suites.test.ts",
]

const packages: Array<TestProjectConfiguration> = [
  "kernel",
  "server",
  "client",
  "testing",
  "plugin",
  "plugin-telegram",
  "plugin-email",
  "plugin-discord",
  "plugin-matrix",
  "plugin-slack",
  "plugin-whatsapp",
  "plugin-webhook",
  "plugin-web-fetch",
].map((name) => ({
  resolve: { alias },
  test: {
    name,
    ...(sharedModules.has(name) ? { pool: "threads" as const, poolOptions: { threads: { isolate: false } } } : {}),
    root: `./packages/${name}`,
    include: ["test/**/*.test.ts"],
    ...(name === "server" ? { exclude: serverProcessFiles } : {}),
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
}))

/**
 * The web console: unit tests of its pure modules, and the end-to-end suite in Debian's Chromium
 * against a real server (skipped, with a notice, where no Chromium is installed).
 */
const consoleProject: TestProjectConfiguration = {
  resolve: { alias },
  test: {
    name: "console",
    root: "./packages/console",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
}

const serverProcessProject: TestProjectConfiguration = {
  resolve: { alias },
  test: {
    name: "server-process",
    root: "./packages/server",
    include: serverProcessFiles,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
}

/** One project per package; `vitest.config.ts` runs them all. Examples with tests of their own run too. */
export const projects: Array<TestProjectConfiguration> = [
  ...packages,
  serverProcessProject,
  consoleProject,
  {
    // The `aide` command line, run as a process against real servers (its chat in tmux).
    resolve: { alias },
    test: {
      name: "cli",
      root: "./packages/cli",
      include: ["test/**/*.test.ts"],
      globalSetup: ["./test/support/globalSetup.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  },
  {
    resolve: { alias },
    test: {
      name: "examples",
      root: "./examples",
      include: ["*/test/**/*.test.ts"],
      testTimeout: 20_000,
      hookTimeout: 30_000,
    },
  },
]

export default projects
