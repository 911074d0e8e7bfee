import { Metric, MetricBoundaries, MetricLabel } from "effect"

/**
 * What the kernel counts, as Effect metrics in the default registry (a host renders them, e.g.
 * `GET /metrics` in Prometheus text). Updated with `unsafeUpdate` from the paths that already
 * run: a counter bump, no fiber, no allocation beyond the label.
 */
const seconds = MetricBoundaries.exponential({ start: 0.025, factor: 2, count: 12 })

export const chatRuns = Metric.counter("aide_chat_runs_total", {
  description: "Chat runs by how they ended (completed, stopped, cut, model_error, failed, failed_to_start).",
  incremental: true,
})
export const chatFirstDelta = Metric.histogram(
  "aide_chat_first_delta_seconds",
  seconds,
  "Time from a chat run's start to the model's first content.",
)
export const modelErrors = Metric.counter("aide_model_errors_total", {
  description: "Model calls that failed (before or while streaming).",
  incremental: true,
})
export const toolCalls = Metric.counter("aide_tool_calls_total", {
  description: "Tool calls by source (builtin, mcp, plugin) and outcome (ok, error).",
  incremental: true,
})
export const schedulerLag = Metric.histogram(
  "aide_scheduler_lag_seconds",
  seconds,
  "How late a scheduled task or heartbeat fired after its due time.",
)
export const inboxDeliveries = Metric.counter("aide_inbox_deliveries_total", {
  description: "Channel deliveries of inbox messages by outcome (sent, failed).",
  incremental: true,
})

export const dbPoolConnections = Metric.gauge("aide_db_pool_connections", {
  description: "Open database connections of this replica's pool by state (idle, in_use), at scrape time.",
})
export const dbPoolMax = Metric.gauge("aide_db_pool_max", {
  description: "The most connections this replica's database pool opens.",
})
export const dbPoolWaiting = Metric.gauge("aide_db_pool_waiting", {
  description: "Queries waiting for a database connection (the pool full and busy), at scrape time.",
})

const labelSets = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
/**
 * One label array per set of values (`key, value, key, value…`), made once: the hot paths pass
 * the same one each time. Values come from closed sets (outcomes, sources, states).
 */
const labels = (...keyValues: ReadonlyArray<string>) => {
  const id = keyValues.join("\u0000")
  let found = labelSets.get(id)
  if (found === undefined) {
    const made: Array<MetricLabel.MetricLabel> = []
    for (let i = 0; i + 1 < keyValues.length; i += 2) made.push(MetricLabel.make(keyValues[i]!, keyValues[i + 1]!))
    found = made
    labelSets.set(id, found)
  }
  return found
}

export const countChatRun = (outcome: string) => chatRuns.unsafeUpdate(1, labels("outcome", outcome))
export const observeFirstDelta = (millis: number) => chatFirstDelta.unsafeUpdate(millis / 1000, [])
export const countModelError = () => modelErrors.unsafeUpdate(1, [])
/** Where a tool comes from: the `kind` of its `ToolSource`, never its id (which would grow without bound). */
export type ToolSourceKind = "builtin" | "mcp" | "plugin"
export const countToolCall = (source: ToolSourceKind, outcome: "ok" | "error") =>
  toolCalls.unsafeUpdate(1, labels("source", source, "outcome", outcome))
export const observeSchedulerLag = (millis: number) => schedulerLag.unsafeUpdate(Math.max(0, millis) / 1000, [])
/** A pool's state as gauges: read by the host at scrape time (`DatabasePool.usage`). */
export const recordPoolUsage = (usage: {
  readonly max: number
  readonly inUse: number
  readonly idle: number
  readonly waiting: number
}) => {
  dbPoolConnections.unsafeUpdate(usage.idle, labels("state", "idle"))
  dbPoolConnections.unsafeUpdate(usage.inUse, labels("state", "in_use"))
  dbPoolMax.unsafeUpdate(usage.max, [])
  dbPoolWaiting.unsafeUpdate(usage.waiting, [])
}
export const countInboxDelivery = (outcome: "sent" | "failed") =>
  inboxDeliveries.unsafeUpdate(1, labels("outcome", outcome))
