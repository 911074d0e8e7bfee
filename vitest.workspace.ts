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
  { find: /^@aide\/testing$/, replacement: source("testing/src/index.ts") },
]

const packages: Array<TestProjectConfiguration> = [
  "kernel",
  "server",
  "client",
  "testing",
  "plugin",
  "plugin-telegram",
  "plugin-webhook",
  "plugin-web-fetch",
].map((name) => ({
  resolve: { alias },
  test: {
    name,
    root: `./packages/${name}`,
    include: ["test/**/*.test.ts"],
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

/** One project per package; `vitest.config.ts` runs them all. Examples with tests of their own run too. */
export const projects: Array<TestProjectConfiguration> = [
  ...packages,
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
