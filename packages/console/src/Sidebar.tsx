import type { ThreadSummary } from "@aide/client"
import { useCallback, useEffect, useState } from "react"
import { client, errorText } from "./api.js"
import { Icon } from "./Icon.js"
import { provisionalTitle } from "./provisionalTitles.js"
import { href, navigate } from "./router.js"
import { onShortcut } from "./Shortcuts.js"

/** Other components say "the threads changed" (a chat finished, a title arrived) with this event. */
export const threadsChanged = () => globalThis.dispatchEvent(new Event("aide:threads"))

const pageSize = 50

/** Threads: newest first, paged, searched by title, renamed and deleted in place. */
export function Sidebar({ activeThreadId }: { readonly activeThreadId: string | undefined }) {
  const [threads, setThreads] = useState<ReadonlyArray<ThreadSummary>>([])
  const [hasMore, setHasMore] = useState(false)
  const [page, setPage] = useState(1)
  const [query, setQuery] = useState("")
  const [editing, setEditing] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const load = useCallback(async (pages: number) => {
    try {
      const list = await client.threads.list({ page: 0, perPage: pageSize * pages })
      setThreads(list.threads)
      setHasMore(list.hasMore)
      setError(null)
    } catch (cause) {
      setError(errorText(cause))
    }
  }, [])
  useEffect(() => {
    void load(page)
    const refresh = () => void load(page)
    globalThis.addEventListener("aide:threads", refresh)
    return () => globalThis.removeEventListener("aide:threads", refresh)
  }, [load, page])
  const needle = query.trim().toLowerCase()
  const shown = needle === "" ? threads : threads.filter((t) => (t.title ?? "").toLowerCase().includes(needle))
  // Alt+↑ / Alt+↓: the thread above or below the one on screen (the first one from a new chat).
  useEffect(() => {
    const step = (by: number) => () => {
      const at = shown.findIndex((thread) => thread.threadIds.includes(activeThreadId ?? ""))
      const next = at === -1 ? shown[0] : shown[at + by]
      if (next !== undefined) navigate(`/chat/${encodeURIComponent(next.activeThreadId)}`)
    }
    const offs = [onShortcut("previous-thread", step(-1)), onShortcut("next-thread", step(1))]
    return () => {
      for (const off of offs) off()
    }
  }, [shown, activeThreadId])
  return (
    <aside className="sidebar" aria-label="Threads">
      <button type="button" className="primary wide" onClick={() => navigate("/")}>
        New chat
      </button>
      <input
        type="search"
        aria-label="Search threads"
        placeholder="Search threads"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
      />
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <ul className="threads">
        {shown.map((thread) => {
          const id = thread.activeThreadId
          const active = thread.threadIds.includes(activeThreadId ?? "")
          // Untitled while its first answer streams: the first words, as the heading shows them.
          // (Never "New chat": that is the button above, and "Rename New chat" would share its name.)
          const title = thread.title ?? provisionalTitle(thread.id) ?? "Untitled chat"
          return (
            <li key={thread.id} className={active ? "active" : ""}>
              {editing === thread.id ? (
                <form
                  onSubmit={(event) => {
                    event.preventDefault()
                    const value = String(new FormData(event.currentTarget).get("title") ?? "").trim() || null
                    // The entry is the original; the branch of it on screen takes the name too,
                    // so the heading and the list agree.
                    // So does the latest branch, whose title `aide threads` shows for the entry.
                    const onScreen = activeThreadId !== undefined && active ? [activeThreadId] : []
                    const ids = [...new Set([thread.id, thread.activeThreadId, ...onScreen])]
                    void Promise.all(ids.map((id) => client.threads.rename(id, value)))
                      .then(threadsChanged)
                      .catch((cause) => setError(errorText(cause)))
                    setEditing(null)
                  }}
                >
                  <input name="title" aria-label="Thread title" defaultValue={thread.title ?? ""} autoFocus />
                  <button type="submit">Save</button>
                </form>
              ) : (
                <>
                  <a
                    href={href(`/chat/${encodeURIComponent(id)}`)}
                    aria-current={active ? "page" : undefined}
                    onClick={(event) => {
                      event.preventDefault()
                      navigate(`/chat/${encodeURIComponent(id)}`)
                    }}
                  >
                    {title}
                  </a>
                  <button
                    type="button"
                    className="icon small"
                    aria-label={`Rename ${title}`}
                    onClick={() => setEditing(thread.id)}
                  >
                    <Icon name="pencil" size={16} />
                  </button>
                  <button
                    type="button"
                    className="icon small"
                    aria-label={`Delete ${title}`}
                    onClick={() => {
                      if (!confirm(`Delete “${title}”?`)) return
                      void client.threads
                        .remove(thread.id)
                        .then(() => {
                          if (active) navigate("/")
                          return load(page)
                        })
                        .catch((cause) => setError(errorText(cause)))
                    }}
                  >
                    <Icon name="trash" size={16} />
                  </button>
                </>
              )}
            </li>
          )
        })}
      </ul>
      {hasMore && (
        <button type="button" onClick={() => setPage((p) => p + 1)}>
          Load more
        </button>
      )}
    </aside>
  )
}
