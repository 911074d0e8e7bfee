// PostgreSQL databases of bench/year.mjs, through the `pg` driver the server bundles with: the
// year's database (`aide_year_<scale>`, kept and reused like the SQLite directory) and a fresh
// empty one per run (dropped after). `explain` prints a statement's plan for the README.

import { createRequire } from "node:module"
import * as path from "node:path"
import { root } from "./harness.mjs"

const loadPg = () =>
  createRequire(createRequire(path.join(root, "packages/server/package.json")).resolve("@effect/sql-pg/package.json"))(
    "pg",
  )

/** Runs `statements` on one connection to `url`; answers the last result. */
export const pgQuery = async (url, ...statements) => {
  const pg = loadPg()
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  client.on("error", () => {})
  await client.connect()
  try {
    let result
    for (const statement of statements) result = await client.query(statement)
    return result
  } finally {
    await client.end()
  }
}

const withDatabase = (adminUrl, name) => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** `aide_year_<scale>` or `name` (created when missing); `created` says whether it is new (so unseeded). */
export const yearDatabase = async (adminUrl, scale, name = `aide_year_${String(scale).replace(/\./g, "_")}`) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`--pg-db: not a plain database name: ${name}`)
  const found = await pgQuery(adminUrl, `SELECT 1 FROM pg_database WHERE datname = '${name}'`)
  const created = found.rowCount === 0
  if (created) await pgQuery(adminUrl, `CREATE DATABASE ${name}`)
  return { name, url: withDatabase(adminUrl, name), created }
}

/** A fresh database for the empty side; `drop()` removes it. */
export const emptyDatabase = async (adminUrl) => {
  const name = `aide_year_empty_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  await pgQuery(adminUrl, `CREATE DATABASE ${name}`)
  return {
    name,
    url: withDatabase(adminUrl, name),
    drop: () => pgQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  }
}
