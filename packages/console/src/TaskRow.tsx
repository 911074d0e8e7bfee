import type { ScheduledTask } from "@aide/client"
import { useEffect, useRef } from "react"
import { client } from "./api.js"
import { describeCron, formatRun } from "./cron.js"

/** `GET /api/schedule/destinations`'s label of the web inbox (SPEC), said as the editor says it. */
const destinationText = (destination: string | null) =>
  destination === null ? "no destination" : destination === "Web Inbox" ? "the web inbox" : destination

/**
 * A scheduled task: what, when (times in the task's zone, formatted like the editor's preview),
 * where; enable, edit, delete. `justCreated`: highlighted, scrolled into view and confirmed.
 */
export function TaskRow({
  task,
  defaultZone,
  justCreated,
  act,
  onEdit,
}: {
  readonly task: ScheduledTask
  /** The config time zone, which a task without its own is read in. */
  readonly defaultZone: string
  readonly justCreated: boolean
  readonly act: (action: () => Promise<unknown>) => void
  readonly onEdit: () => void
}) {
  const zone = task.timezone ?? defaultZone
  const ref = useRef<HTMLLIElement>(null)
  useEffect(() => {
    if (justCreated) ref.current?.scrollIntoView({ block: "center" })
  }, [justCreated])
  return (
    <li className={`card ${justCreated ? "just-created" : ""}`} ref={ref}>
      <h3>{task.name}</h3>
      {justCreated && <output className="created">Task created.</output>}
      <p className="muted">
        {task.cron
          ? `${describeCron(task.cron)} (${task.cron})`
          : `Once at ${task.runAt ? formatRun(new Date(task.runAt), zone) : "?"}`}{" "}
        · {task.timezone ?? "the configured zone"}
        {task.maxRuns ? ` · at most ${task.maxRuns} runs` : ""} · {destinationText(task.destination ?? null)}
      </p>
      <p>{task.prompt}</p>
      <p className="muted">
        {task.isRunning
          ? "Running now"
          : task.nextRun
            ? `Next run ${formatRun(new Date(task.nextRun), zone)}`
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
        <button type="button" aria-label={`Edit ${task.name}`} onClick={onEdit}>
          Edit
        </button>
        <button
          type="button"
          className="danger"
          aria-label={`Delete ${task.name}`}
          onClick={() => act(() => client.schedule.remove(task.id))}
        >
          Delete
        </button>
      </div>
    </li>
  )
}
