import { describeCron, formatRun, nextRuns } from "./cron.js"

/** `GET /api/schedule/destinations` always lists the web inbox under this label (SPEC). */
export const webInbox = "Web Inbox"

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
