import { createRequire } from "node:module"

/**
 * What an entry of this package needs installed beside it, checked when the entry is imported:
 * `@effect/vitest` and `vitest` are optional peers (the plugin harness and the fake model server
 * need neither), so without this a user meets Node's bare "Cannot find package" instead of the
 * command that fixes it.
 */
export interface Peers {
  /** The entry that needs them, as a user imports it (e.g. `@aide/testing/effect`). */
  readonly entry: string
  /** Package names, in the order they are reported. */
  readonly packages: ReadonlyArray<string>
  /** The command that installs them. */
  readonly install: string
}

/** The peers a user's `@aide/testing/effect` and `/contracts` need (the versions of package.json's peerDependencies). */
export const effectVitestPeers: Peers = {
  entry: "@aide/testing/effect (and @aide/testing/contracts)",
  packages: ["vitest", "@effect/vitest"],
  install: "npm i -D vitest@^3.2.4 @effect/vitest@^0.29.0",
}

/**
 * The PostgreSQL suites' peers (`freshPostgresStorage`, `createTestDatabase`, the PostgreSQL half
 * of `bothDialects` and of the contract suites), checked when they first connect. SQLite's
 * (`better-sqlite3`, `@effect/sql-sqlite-node`) are the kernel's: `SqliteStorage` names them.
 */
export const postgresPeers: Peers = {
  entry: "@aide/testing/effect's PostgreSQL databases (AIDE_TEST_DATABASE_URL)",
  packages: ["@effect/sql-pg", "pg"],
  install: "npm i -D @effect/sql-pg@^0.53.0 pg@^8.23.1",
}

/** Whether `name` resolves from `from` (its package.json, else its main entry: some packages export neither to require). */
const resolves = (from: string | URL, name: string): boolean => {
  const require = createRequire(from)
  for (const specifier of [`${name}/package.json`, name]) {
    try {
      require.resolve(specifier)
      return true
    } catch {
      // Tried below with the next specifier; unresolved by both means not installed.
    }
  }
  return false
}

/** Throws an error naming the missing packages and the command installing them, if any of `peers` is not installed. */
export const requirePeers = (from: string | URL, peers: Peers): void => {
  const missing = peers.packages.filter((name) => !resolves(from, name))
  if (missing.length > 0) {
    throw new Error(
      `${peers.entry} needs ${missing.join(" and ")} (optional peers of @aide/testing), not installed: ${peers.install}`,
    )
  }
}
