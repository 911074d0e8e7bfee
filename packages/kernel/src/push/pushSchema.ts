import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Schema } from "../storage/SqlMigrations.js"

/**
 * Web Push. `push_subscriptions`: one row per browser subscription, keyed by its endpoint (the
 * push service's URL), with the keys its payloads are encrypted to. `push_vapid`: the server's
 * one VAPID key pair (row `id = 1`), generated at first start and shared by every replica on
 * the database, so subscriptions made through one replica are pushed to by all.
 */
const pushTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE push_vapid (
    id INTEGER PRIMARY KEY,
    public_key TEXT NOT NULL,
    private_key TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`
})

/**
 * The tables of `SqlPushStore`, numbered in the kernel's one sequence. 20, not 18 or 19: 18 is
 * taken by `mcp_auth` on the mcp-oauth branch and 19 is left for the branch merged next.
 */
export const schema: Schema = {
  name: "aide.push",
  migrations: [{ id: 20, name: "web_push", up: pushTables }],
}
