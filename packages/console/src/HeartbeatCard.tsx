import type { Heartbeat, HeartbeatPatch } from "@aide/client"
import { type FormEvent, useState } from "react"
import { client } from "./api.js"
import { CronPreview, webInbox } from "./CronPreview.js"
import { describeCron, formatRun } from "./cron.js"

/** The heartbeat: on/off, its cron, active hours, destination, and its checklist. */
export function HeartbeatCard({
  heartbeat,
  timeZone,
  destinations,
  act,
}: {
  readonly heartbeat: Heartbeat
  readonly timeZone: string
  readonly destinations: ReadonlyArray<string>
  readonly act: (action: () => Promise<unknown>) => void
}) {
  const [cron, setCron] = useState(heartbeat.cron)
  const [limited, setLimited] = useState(heartbeat.activeHours !== null)
  const [newItem, setNewItem] = useState("")
  const [renaming, setRenaming] = useState<{ readonly id: string; readonly text: string } | null>(null)
  const update = (patch: HeartbeatPatch) => act(() => client.schedule.updateHeartbeat(patch))
  const items = (tasks: Heartbeat["tasks"]) => update({ tasks: tasks.map((t) => ({ ...t })) })
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const destination = String(form.get("destination") ?? "")
    update({
      cron,
      destination: destination === "" ? null : destination,
      activeHours: limited ? { start: String(form.get("start")), end: String(form.get("end")) } : null,
    })
  }
  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const description = newItem.trim()
    if (description === "") return
    update({ tasks: [...heartbeat.tasks, { description, enabled: true }] })
    setNewItem("")
  }
  return (
    <section className="card form" aria-labelledby="heartbeat-title">
      <h2 id="heartbeat-title">Heartbeat</h2>
      <label className="inline">
        <input
          type="checkbox"
          checked={heartbeat.enabled}
          onChange={(event) => update({ enabled: event.target.checked })}
        />
        Enabled ({describeCron(heartbeat.cron)})
      </label>
      <p className="muted">
        {heartbeat.activeHours
          ? `Active hours ${heartbeat.activeHours.start}–${heartbeat.activeHours.end}`
          : "Active at any time"}
        {heartbeat.nextRun ? ` · next beat ${formatRun(new Date(heartbeat.nextRun), timeZone)}` : ""}
      </p>
      <form className="form" onSubmit={save} aria-label="Heartbeat settings">
        <label>
          Heartbeat cron
          <input value={cron} onChange={(event) => setCron(event.target.value)} spellCheck={false} />
        </label>
        <CronPreview cron={cron} timeZone={timeZone} />
        <label className="inline">
          <input type="checkbox" checked={limited} onChange={(event) => setLimited(event.target.checked)} />
          Only during active hours ({timeZone})
        </label>
        {limited && (
          <div className="actions">
            <label>
              From
              <input name="start" type="time" required defaultValue={heartbeat.activeHours?.start ?? "08:00"} />
            </label>
            <label>
              To
              <input name="end" type="time" required defaultValue={heartbeat.activeHours?.end ?? "20:00"} />
            </label>
          </div>
        )}
        <label>
          Heartbeat destination
          <select name="destination" defaultValue={heartbeat.destination ?? ""}>
            <option value="">The web inbox</option>
            {/* The web inbox is the empty value above: listed once. */}
            {destinations
              .filter((destination) => destination !== webInbox)
              .map((destination) => (
                <option key={destination}>{destination}</option>
              ))}
          </select>
        </label>
        <button type="submit">Save heartbeat</button>
      </form>
      <h3>Checklist</h3>
      <ul aria-label="Checklist" className="checklist">
        {heartbeat.tasks.map((item) => (
          <li key={item.id}>
            <label className="inline">
              <input
                type="checkbox"
                checked={item.enabled}
                onChange={(event) =>
                  items(heartbeat.tasks.map((t) => (t.id === item.id ? { ...t, enabled: event.target.checked } : t)))
                }
              />
              {item.description}
            </label>
            {renaming?.id === item.id ? (
              <form
                className="actions"
                aria-label={`Edit ${item.description}`}
                onSubmit={(event) => {
                  event.preventDefault()
                  const description = renaming.text.trim()
                  setRenaming(null)
                  if (description !== "" && description !== item.description)
                    items(heartbeat.tasks.map((t) => (t.id === item.id ? { ...t, description } : t)))
                }}
              >
                <label>
                  Description
                  <input
                    value={renaming.text}
                    onChange={(event) => setRenaming({ id: item.id, text: event.target.value })}
                  />
                </label>
                <button type="submit">Save</button>
                <button type="button" onClick={() => setRenaming(null)}>
                  Cancel
                </button>
              </form>
            ) : (
              <button
                type="button"
                aria-label={`Edit ${item.description}`}
                onClick={() => setRenaming({ id: item.id, text: item.description })}
              >
                Edit
              </button>
            )}
            <button
              type="button"
              className="danger"
              aria-label={`Remove ${item.description}`}
              onClick={() => items(heartbeat.tasks.filter((t) => t.id !== item.id))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form className="actions" onSubmit={add} aria-label="Add a checklist item">
        <label>
          New checklist item
          <input value={newItem} onChange={(event) => setNewItem(event.target.value)} />
        </label>
        <button type="submit">Add item</button>
      </form>
    </section>
  )
}
