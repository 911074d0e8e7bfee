import { Effect, Metric, type MetricKey, type MetricPair, MetricState, Option } from "effect"

/** Prometheus label values escape backslash, quote and newline. */
const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")

const labelsOf = (key: MetricKey.MetricKey.Untyped, extra: ReadonlyArray<readonly [string, string]> = []) => {
  const pairs = [...key.tags.map((tag) => [tag.key, tag.value] as const), ...extra]
  return pairs.length === 0 ? "" : `{${pairs.map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(",")}}`
}

const number = (value: number | bigint) =>
  typeof value === "bigint" ? value.toString() : Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : "-Inf"

const typeOf = (state: MetricState.MetricState.Untyped) =>
  MetricState.isCounterState(state)
    ? "counter"
    : MetricState.isHistogramState(state)
      ? "histogram"
      : MetricState.isSummaryState(state)
        ? "summary"
        : "gauge"

const samples = (pair: MetricPair.MetricPair.Untyped): Array<string> => {
  const { metricKey: key, metricState: state } = pair
  const name = key.name
  if (MetricState.isCounterState(state)) return [`${name}${labelsOf(key)} ${number(state.count)}`]
  if (MetricState.isGaugeState(state)) return [`${name}${labelsOf(key)} ${number(state.value)}`]
  if (MetricState.isHistogramState(state)) {
    const lines = state.buckets.map(
      ([boundary, count]) => `${name}_bucket${labelsOf(key, [["le", number(boundary)]])} ${count}`,
    )
    lines.push(`${name}_bucket${labelsOf(key, [["le", "+Inf"]])} ${state.count}`)
    lines.push(`${name}_sum${labelsOf(key)} ${number(state.sum)}`, `${name}_count${labelsOf(key)} ${state.count}`)
    return lines
  }
  if (MetricState.isFrequencyState(state)) {
    return Array.from(state.occurrences, ([value, count]) => `${name}${labelsOf(key, [["value", value]])} ${count}`)
  }
  if (MetricState.isSummaryState(state)) {
    const lines = state.quantiles.flatMap(([quantile, value]) =>
      Option.isSome(value) ? [`${name}${labelsOf(key, [["quantile", String(quantile)]])} ${number(value.value)}`] : [],
    )
    lines.push(`${name}_sum${labelsOf(key)} ${number(state.sum)}`, `${name}_count${labelsOf(key)} ${state.count}`)
    return lines
  }
  return []
}

/**
 * Effect's metric registry as Prometheus text (exposition format 0.0.4): the metrics whose name
 * starts with `prefix`, one HELP/TYPE block per name, its label sets below it.
 */
export const render = (prefix: string) =>
  Effect.map(Metric.snapshot, (pairs) => {
    const byName = new Map<string, Array<MetricPair.MetricPair.Untyped>>()
    for (const pair of pairs) {
      if (!pair.metricKey.name.startsWith(prefix)) continue
      const group = byName.get(pair.metricKey.name)
      if (group === undefined) byName.set(pair.metricKey.name, [pair])
      else group.push(pair)
    }
    const lines: Array<string> = []
    for (const [name, group] of Array.from(byName).sort(([a], [b]) => a.localeCompare(b))) {
      const first = group[0]!
      const help = Option.getOrElse(first.metricKey.description, () => name)
      lines.push(`# HELP ${name} ${help.replace(/\n/g, " ")}`, `# TYPE ${name} ${typeOf(first.metricState)}`)
      for (const pair of group) lines.push(...samples(pair))
    }
    return `${lines.join("\n")}\n`
  })
