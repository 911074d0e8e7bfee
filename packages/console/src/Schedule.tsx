import type { ScheduledTask, ScheduledTaskInput } from "@aide/client"
import { type FormEvent, useId, useState } from "react"
import { client, errorText } from "./api.js"
import { CronPreview, webInbox } from "./CronPreview.js"
import { HeartbeatCard } from "./HeartbeatCard.js"
import { TaskRow } from "./TaskRow.js"
import { useLoad } from "./useLoad.js"

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone

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
