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

const labels = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
/** One label array per value, made once: the hot paths pass the same one each time. */
const label = (key: string, value: string) => {
  const id = `${key}=${value}`
  let found = labels.get(id)
  if (found === undefined) {
    found = [MetricLabel.make(key, value)]
    labels.set(id, found)
  }
  return found
}

export const countChatRun = (outcome: string) => chatRuns.unsafeUpdate(1, label("outcome", outcome))
export const observeFirstDelta = (millis: number) => chatFirstDelta.unsafeUpdate(millis / 1000, [])
export const countModelError = () => modelErrors.unsafeUpdate(1, [])
/** Where a tool comes from: the `kind` of its `ToolSource`, never its id (which would grow without bound). */
export type ToolSourceKind = "builtin" | "mcp" | "plugin"
const toolCallLabels = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
export const countToolCall = (source: ToolSourceKind, outcome: "ok" | "error") => {
  const id = `${source}|${outcome}`
  let found = toolCallLabels.get(id)
  if (found === undefined) {
    found = [MetricLabel.make("source", source), MetricLabel.make("outcome", outcome)]
    toolCallLabels.set(id, found)
  }
  toolCalls.unsafeUpdate(1, found)
}
export const observeSchedulerLag = (millis: number) => schedulerLag.unsafeUpdate(Math.max(0, millis) / 1000, [])
/** A pool's state as gauges: read by the host at scrape time (`DatabasePool.usage`). */
export const recordPoolUsage = (usage: {
  readonly max: number
  readonly inUse: number
  readonly idle: number
  readonly waiting: number
}) => {
  dbPoolConnections.unsafeUpdate(usage.idle, label("state", "idle"))
  dbPoolConnections.unsafeUpdate(usage.inUse, label("state", "in_use"))
  dbPoolMax.unsafeUpdate(usage.max, [])
  dbPoolWaiting.unsafeUpdate(usage.waiting, [])
}
export const countInboxDelivery = (outcome: "sent" | "failed") =>
  inboxDeliveries.unsafeUpdate(1, label("outcome", outcome))
