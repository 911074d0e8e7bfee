import type { ScheduledTask, ScheduledTaskInput } from "@aide/client"
import { type FormEvent, useState } from "react"
import { client, errorText } from "./api.js"
import { describeCron, formatRun, nextRuns } from "./cron.js"
import { useLoad } from "./useLoad.js"

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone

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

function TaskEditor({
  onSaved,
  destinations,
}: {
  readonly onSaved: () => void
  readonly destinations: ReadonlyArray<string>
}) {
  const [kind, setKind] = useState<"cron" | "once">("cron")
  const [cron, setCron] = useState("0 9 * * 1-5")
  const [timeZone, setTimeZone] = useState(localZone)
  const [error, setError] = useState<string | null>(null)
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const maxRuns = Number(form.get("maxRuns") || 0)
    const destination = String(form.get("destination") ?? "")
    const runAt = String(form.get("runAt") ?? "")
    const task: ScheduledTaskInput = {
      name: String(form.get("name")),
      prompt: String(form.get("prompt")),
      timezone: timeZone,
      ...(kind === "cron" ? { cron } : { runAt: new Date(runAt).toISOString() }),
      ...(kind === "cron" && maxRuns > 0 ? { maxRuns } : {}),
      ...(destination === "" ? {} : { destination }),
    }
    try {
      await client.schedule.create(task)
      setError(null)
      event.currentTarget?.reset()
      onSaved()
    } catch (cause) {
      setError(errorText(cause))
    }
  }
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="new-task">
      <h2 id="new-task">New task</h2>
      <label>
        Name
        <input name="name" required />
      </label>
      <label>
        Prompt
        <textarea name="prompt" rows={3} required />
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
          <CronPreview cron={cron} timeZone={timeZone} />
          <label>
            Max runs (empty: no limit)
            <input name="maxRuns" type="number" min={1} />
          </label>
        </>
      ) : (
        <label>
          Date and time
          <input name="runAt" type="datetime-local" step={1} required />
        </label>
      )}
      <label>
        Time zone
        <input value={timeZone} onChange={(event) => setTimeZone(event.target.value)} />
      </label>
      <label>
        Destination
        <select name="destination" defaultValue={destinations[0] ?? ""}>
          <option value="">None: only the task's thread</option>
          {destinations.map((destination) => (
            <option key={destination}>{destination}</option>
          ))}
        </select>
      </label>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" className="primary">
        Create task
      </button>
    </form>
  )
}

function TaskRow({
  task,
  act,
}: {
  readonly task: ScheduledTask
  readonly act: (action: () => Promise<unknown>) => void
}) {
  return (
    <li className="card">
      <h3>{task.name}</h3>
      <p className="muted">
        {task.cron ? `${describeCron(task.cron)} (${task.cron})` : `Once at ${task.runAt}`} ·{" "}
        {task.timezone ?? "default zone"}
        {task.maxRuns ? ` · at most ${task.maxRuns} runs` : ""} · {task.destination ?? "no destination"}
      </p>
      <p>{task.prompt}</p>
      <p className="muted">
        {task.isRunning
          ? "Running now"
          : task.nextRun
            ? `Next run ${new Date(task.nextRun).toLocaleString()}`
            : "No next run"}
      </p>
      <div className="actions">
        <label className="inline">
          <input
            type="checkbox"
            checked={task.enabled}
            onChange={(event) => act(() => client.schedule.update(task.id, { enabled: event.target.checked }))}
          />
          Enabled
        </label>
        <button type="button" className="danger" onClick={() => act(() => client.schedule.remove(task.id))}>
          Delete
        </button>
      </div>
    </li>
  )
}

/** Scheduled tasks and the heartbeat. */
export function Schedule() {
  const { data, error, act, reload } = useLoad(() =>
    Promise.all([client.schedule.list(), client.schedule.destinations(), client.schedule.heartbeat()]),
  )
  const [list, destinations, heartbeat] = data ?? [undefined, [], undefined]
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
        {list?.tasks.map((task) => (
          <TaskRow key={task.id} task={task} act={act} />
        ))}
      </ul>
      {data && <TaskEditor onSaved={reload} destinations={destinations} />}
      {heartbeat && (
        <section className="card form" aria-labelledby="heartbeat-title">
          <h2 id="heartbeat-title">Heartbeat</h2>
          <label className="inline">
            <input
              type="checkbox"
              checked={heartbeat.enabled}
              onChange={(event) => act(() => client.schedule.updateHeartbeat({ enabled: event.target.checked }))}
            />
            Enabled ({describeCron(heartbeat.cron)})
          </label>
          {heartbeat.activeHours && (
            <p className="muted">
              Active hours {heartbeat.activeHours.start}–{heartbeat.activeHours.end}
            </p>
          )}
          <ul aria-label="Checklist">
            {heartbeat.tasks.map((item) => (
              <li key={item.id}>
                <label className="inline">
                  <input
                    type="checkbox"
                    checked={item.enabled}
                    onChange={(event) =>
                      act(() =>
                        client.schedule.updateHeartbeat({
                          tasks: heartbeat.tasks.map((t) =>
                            t.id === item.id ? { ...t, enabled: event.target.checked } : t,
                          ),
                        }),
                      )
                    }
                  />
                  {item.description}
                </label>
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  )
}
