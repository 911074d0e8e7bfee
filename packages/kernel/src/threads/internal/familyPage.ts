import type { SqlClient } from "@effect/sql"
import type { FamilyRow } from "./threadRows.js"

/**
 * The rows of one page of families (`Threads.list`): roots by activity, each followed by its
 * members (the root first, then its branches in creation order), as `toSummaries` groups them.
 *
 * The page of roots takes only `id` and `family_updated_at`, the columns of the partial index
 * `threads_roots_by_activity`, so OFFSET counts its way through that index alone (an index-only
 * scan) instead of reading every root's row: on PostgreSQL the deep page was a seq scan and a sort
 * of every root (4.4 ms of the database's CPU at 2,000 roots against 1 ms now). The root's title
 * and creation time come with its own member row (a root's `root_id` is its `id`).
 */
export const familyPage = (
  sql: SqlClient.SqlClient,
  window: { readonly limit: number; readonly offset: number } | undefined,
) => {
  const limit = window === undefined ? sql.literal("") : sql`LIMIT ${window.limit} OFFSET ${window.offset}`
  const page = sql`
    SELECT id, family_updated_at FROM threads
    WHERE parent_id IS NULL
    ORDER BY family_updated_at DESC, id DESC
    ${limit}`
  const columns = sql.literal(`page.id AS "rootId", member.title AS "title", member.created_at AS "createdAt",
    page.family_updated_at AS "familyUpdatedAt", member.id AS "id", member.updated_at AS "updatedAt"`)
  const joined = sql<FamilyRow>`
    SELECT ${columns}
    FROM (${page}) page JOIN threads member ON member.root_id = page.id
    ORDER BY page.family_updated_at DESC, page.id DESC,
             CASE WHEN member.parent_id IS NULL THEN 0 ELSE 1 END, member.created_at, member.id`
  if (window === undefined) return joined
  return sql.onDialectOrElse({
    // A page's families one index probe each (`threads_root_id`), whatever the table holds. As a
    // plain join the planner hashes the whole table for them while it is small (a seq scan of
    // every thread for 50 families: 1.07 ms of the database's CPU at 2,200 threads, 0.8 ms as
    // probes). The ORDER BY inside the LATERAL subquery also keeps it from being merged into a
    // join; the page's order then only needs an incremental sort within each family.
    pg: () => sql<FamilyRow>`
      SELECT ${columns}
      FROM (${page}) page
      CROSS JOIN LATERAL (
        SELECT id, title, created_at, updated_at, CASE WHEN parent_id IS NULL THEN 0 ELSE 1 END AS branch
        FROM threads WHERE root_id = page.id
        ORDER BY branch, created_at, id
      ) member
      ORDER BY page.family_updated_at DESC, page.id DESC, member.branch, member.created_at, member.id`,
    orElse: () => joined,
  })
}
