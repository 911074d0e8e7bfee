import type { Heartbeat, HeartbeatPatch, ScheduledTask, ScheduledTaskInput } from "@aide/client"
import { type FormEvent, useId, useState } from "react"
import { client, errorText } from "./api.js"
import { describeCron, formatRun, nextRuns } from "./cron.js"
import { TaskRow } from "./TaskRow.js"
import { useLoad } from "./useLoad.js"

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone

/** `GET /api/schedule/destinations` always lists the web inbox under this label (SPEC). */
const webInbox = "Web Inbox"

/** The words and next runs of a cron expression, as it is typed. */
export function CronPreview({ cron, timeZone }: { readonly cron: string; readonly timeZone: string }) {
  const runs = nextRuns(cron, timeZone, new Date())
  return (
    <div className="cron-preview" aria-live="polite">
      <p>{describeCron(cron)}</p>
      {runs.ok ? (
        <ul aria-label="Next runs">
          {runs.runs.map((run) => (
            <li key={run.toISOString()}>{formatRun(run, timeZone)}</li>
          ))}
        </ul>
      ) : (
        <p className="error">{runs.error}</p>
      )}
    </div>
  )
}

/** An ISO instant as a `datetime-local` value in the browser's zone (to the second). */
const localInput = (iso: string) => {
  const at = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`
}

/** Creates a task, or edits `task` (PATCH of every field, `null` clearing what was emptied). */
function TaskEditor({
  task,
  defaultZone,
  onSaved,
  onCancel,
  destinations,
}: {
  readonly task?: ScheduledTask
  /** The config time zone, which a task without its own is read in. */
  readonly defaultZone: string
  /** Called with the task when it was created. */
  readonly onSaved: (created?: ScheduledTask) => void
  readonly onCancel?: () => void
  readonly destinations: ReadonlyArray<string>
}) {
  const titleId = useId()
  const [kind, setKind] = useState<"cron" | "once">(task && !task.cron ? "once" : "cron")
  const [cron, setCron] = useState(task?.cron ?? "0 9 * * 1-5")
  // A new task gets the browser's zone; an edited one keeps its own, or none (the config's).
  const [timeZone, setTimeZone] = useState(task ? (task.timezone ?? "") : localZone)
  const zone = timeZone.trim()
  const [error, setError] = useState<string | null>(null)
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const formElement = event.currentTarget
    const form = new FormData(formElement)
    const maxRuns = Number(form.get("maxRuns") || 0)
    const destination = String(form.get("destination") ?? "")
    const runAt = String(form.get("runAt") ?? "")
    const name = String(form.get("name"))
    const prompt = String(form.get("prompt"))
    try {
      if (task) {
        await client.schedule.update(task.id, {
          name,
          prompt,
          timezone: zone === "" ? null : zone,
          ...(kind === "cron"
            ? { cron, runAt: null, maxRuns: maxRuns > 0 ? maxRuns : null }
            : { cron: null, runAt: new Date(runAt).toISOString(), maxRuns: null }),
          destination: destination === "" ? null : destination,
        })
      } else {
        const input: ScheduledTaskInput = {
          name,
          prompt,
          ...(zone === "" ? {} : { timezone: zone }),
          ...(kind === "cron" ? { cron } : { runAt: new Date(runAt).toISOString() }),
          ...(kind === "cron" && maxRuns > 0 ? { maxRuns } : {}),
          ...(destination === "" ? {} : { destination }),
        }
        const created = await client.schedule.create(input)
        formElement.reset()
        setError(null)
        return onSaved(created)
      }
      setError(null)
      onSaved()
    } catch (cause) {
      setError(errorText(cause))
    }
  }
  return (
    <form className="card form" onSubmit={submit} aria-labelledby={titleId}>
      <h2 id={titleId}>{task ? `Edit ${task.name}` : "New task"}</h2>
      <label>
        Name
        <input name="name" required defaultValue={task?.name} />
      </label>
      <label>
        Prompt
        <textarea name="prompt" rows={3} required defaultValue={task?.prompt} />
      </label>
      <fieldset>
        <legend>When</legend>
        <label className="inline">
          <input type="radio" name="kind" checked={kind === "cron"} onChange={() => setKind("cron")} /> Repeating (cron)
        </label>
        <label className="inline">
          <input type="radio" name="kind" checked={kind === "once"} onChange={() => setKind("once")} /> Once
        </label>
      </fieldset>
      {kind === "cron" ? (
        <>
          <label>
            Cron expression
            <input value={cron} onChange={(event) => setCron(event.target.value)} spellCheck={false} />
          </label>
          <CronPreview cron={cron} timeZone={zone === "" ? defaultZone : zone} />
          <label>
            Max runs (empty: no limit)
            <input name="maxRuns" type="number" min={1} defaultValue={task?.maxRuns ?? undefined} />
          </label>
        </>
      ) : (
        <label>
          Date and time
          <input
            name="runAt"
            type="datetime-local"
            step={1}
            required
            defaultValue={task?.runAt ? localInput(task.runAt) : undefined}
          />
        </label>
      )}
      <label>
        Time zone
        <input
          value={timeZone}
          placeholder={`${defaultZone} (the configured zone)`}
          onChange={(event) => setTimeZone(event.target.value)}
        />
      </label>
      <label>
        Destination
        <select name="destination" defaultValue={task ? (task.destination ?? "") : (destinations[0] ?? "")}>
          <option value="">None: only the task's thread</option>
          {destinations.map((destination) => (
            <option key={destination} value={destination}>
              {destination === webInbox ? "The web inbox" : destination}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary">
          {task ? "Save task" : "Create task"}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  )
}

/** The heartbeat: on/off, its cron, active hours, destination, and its checklist. */
function HeartbeatCard({
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

/** Scheduled tasks and the heartbeat. */
export function Schedule() {
  const { data, error, act, reload } = useLoad(() =>
    Promise.all([
      client.schedule.list(),
      client.schedule.destinations(),
      client.schedule.heartbeat(),
      client.config.get(),
    ]),
  )
  const [list, destinations, heartbeat, config] = data ?? [undefined, [], undefined, undefined]
  const [editing, setEditing] = useState<string | null>(null)
  // The task just created: highlighted, scrolled to and confirmed (the editor stays below the list).
  const [created, setCreated] = useState<string | null>(null)
  return (
    <section className="page" aria-labelledby="schedule-title">
      <h1 id="schedule-title">Schedule</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {list && !list.enabled && <p className="muted">The scheduler is disabled in the configuration.</p>}
      <ul className="cards">
        {list?.tasks.map((task) =>
          task.id === editing ? (
            <li key={task.id}>
              <TaskEditor
                task={task}
                defaultZone={config?.timezone ?? "UTC"}
                destinations={destinations}
                onCancel={() => setEditing(null)}
                onSaved={() => {
                  setEditing(null)
                  reload()
                }}
              />
            </li>
          ) : (
            <TaskRow
              key={task.id}
              task={task}
              defaultZone={config?.timezone ?? "UTC"}
              justCreated={task.id === created}
              act={act}
              onEdit={() => setEditing(task.id)}
            />
          ),
        )}
      </ul>
      {data && (
        <TaskEditor
          onSaved={(task) => {
            setCreated(task?.id ?? null)
            reload()
          }}
          destinations={destinations}
          defaultZone={config?.timezone ?? "UTC"}
        />
      )}
      {heartbeat && (
        <HeartbeatCard
          key={`${heartbeat.cron} ${JSON.stringify(heartbeat.activeHours)} ${heartbeat.destination}`}
          heartbeat={heartbeat}
          timeZone={config?.timezone ?? "UTC"}
          destinations={destinations}
          act={act}
        />
      )}
    </section>
  )
}
