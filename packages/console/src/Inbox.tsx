import { useState } from "react"
import { client } from "./api.js"
import { Markdown } from "./markdown.js"
import { navigate } from "./router.js"
import { useLoad } from "./useLoad.js"

const changed = () => globalThis.dispatchEvent(new Event("aide:inbox"))

/** Results of scheduled tasks: read/unread, archive, delete, open the task's thread. */
export function Inbox() {
  const [archived, setArchived] = useState(false)
  const { data, error, act } = useLoad(() => client.inbox.list(archived ? { archived: true } : {}), [archived])
  const run = (action: () => Promise<unknown>) => act(() => action().then(changed))
  return (
    <section className="page" aria-labelledby="inbox-title">
      <div className="page-head">
        <h1 id="inbox-title">Inbox</h1>
        <label className="inline">
          <input type="checkbox" checked={archived} onChange={(event) => setArchived(event.target.checked)} />
          Archived
        </label>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {data?.length === 0 && <p className="empty">Nothing here yet. Scheduled tasks deliver their results here.</p>}
      <ul className="cards">
        {data?.map((message) => (
          <li key={message.id} className={`card ${message.read ? "" : "unread"}`}>
            <h2>
              {!message.read && (
                <span className="dot" title="Unread">
                  <span className="visually-hidden">Unread: </span>
                </span>
              )}
              {message.subject}
            </h2>
            <p className="muted">{new Date(message.createdAt).toLocaleString()}</p>
            <Markdown text={message.body} />
            <div className="actions">
              {message.threadId && (
                <button
                  type="button"
                  onClick={() => {
                    run(() => client.inbox.update(message.id, { read: true }))
                    navigate(`/chat/${encodeURIComponent(message.threadId!)}`)
                  }}
                >
                  Open thread
                </button>
              )}
              <button type="button" onClick={() => run(() => client.inbox.update(message.id, { read: !message.read }))}>
                {message.read ? "Mark unread" : "Mark read"}
              </button>
              <button
                type="button"
                onClick={() => run(() => client.inbox.update(message.id, { archived: message.archivedAt === null }))}
              >
                {message.archivedAt === null ? "Archive" : "Unarchive"}
              </button>
              <button type="button" className="danger" onClick={() => run(() => client.inbox.remove(message.id))}>
                Delete
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}
