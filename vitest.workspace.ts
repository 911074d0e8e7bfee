import { fileURLToPath } from "node:url"
import type { TestProjectConfiguration } from "vitest/config"

// Tests run against the TypeScript sources, never a stale build.
const alias = {
  "@aide/kernel/postgres": fileURLToPath(new URL("./packages/kernel/src/postgres.ts", import.meta.url)),
  "@aide/kernel": fileURLToPath(new URL("./packages/kernel/src/index.ts", import.meta.url)),
  "@aide/server": fileURLToPath(new URL("./packages/server/src/index.ts", import.meta.url)),
  "@aide/testing": fileURLToPath(new URL("./packages/testing/src/index.ts", import.meta.url)),
}

/** One project per package; `vitest.config.ts` runs them all. */
export const projects: Array<TestProjectConfiguration> = ["kernel", "server", "testing"].map((name) => ({
  resolve: { alias },
  test: {
    name,
    root: `./packages/${name}`,
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
}))

export default projects
