import type { BranchRef, StoredMessage, ThreadRecord, ThreadSummary } from "../Threads.js"

/** The rows of `SqlThreads`' queries and their conversion to the `Threads` models. */

export interface ThreadRow {
  readonly id: string
  readonly rootId: string
  readonly parentId: string | null
  readonly forkMessageId: string | null
  readonly forkPointIndex: number | null
  readonly title: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

export interface MessageRow {
  readonly id: string
  readonly role: StoredMessage["role"]
  readonly parts: string
  readonly metadata: string | null
}

/** A member of a listed family; `title` and `createdAt` are its own (the family's are the root's: its first row). */
export interface FamilyRow {
  readonly rootId: string
  readonly title: string | null
  readonly createdAt: string
  readonly familyUpdatedAt: string
  readonly id: string
  readonly updatedAt: string
}

export const threadColumns = `id, root_id AS "rootId", parent_id AS "parentId", fork_message_id AS "forkMessageId",
  fork_point_index AS "forkPointIndex", title, created_at AS "createdAt", updated_at AS "updatedAt"`

export const toRecord = (row: ThreadRow): ThreadRecord => ({
  id: row.id,
  rootId: row.rootId,
  parentId: row.parentId,
  forkMessageId: row.forkMessageId,
  forkPointIndex: row.forkPointIndex === null ? null : Number(row.forkPointIndex),
  title: row.title,
  createdAt: new Date(row.createdAt),
  updatedAt: new Date(row.updatedAt),
})

export const toMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  role: row.role,
  parts: JSON.parse(row.parts),
  ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) }),
})

export const toBranchRef = (row: { readonly id: string; readonly title: string | null }): BranchRef =>
  row.title === null ? { id: row.id } : { id: row.id, title: row.title }

/**
 * A page of families (rows ordered by root, then root first and members in creation order) as the
 * list's summaries: title and creation time are the root's; each family's active thread is the one
 * updated last, ties to the newest.
 */
export const toSummaries = (rows: ReadonlyArray<FamilyRow>): Array<ThreadSummary> => {
  const families = new Map<
    string,
    { readonly first: FamilyRow; readonly threadIds: Array<string>; activeThreadId: string; latest: string }
  >()
  for (const row of rows) {
    const family = families.get(row.rootId)
    if (family === undefined) {
      families.set(row.rootId, { first: row, threadIds: [row.id], activeThreadId: row.id, latest: row.updatedAt })
      continue
    }
    family.threadIds.push(row.id)
    // Ties go to the thread created last (members come in creation order).
    if (row.updatedAt >= family.latest) {
      family.latest = row.updatedAt
      family.activeThreadId = row.id
    }
  }
  return Array.from(
    families.values(),
    (family): ThreadSummary => ({
      id: family.first.rootId,
      title: family.first.title,
      createdAt: new Date(family.first.createdAt),
      updatedAt: new Date(family.first.familyUpdatedAt),
      activeThreadId: family.activeThreadId,
      threadIds: family.threadIds,
    }),
  )
}
