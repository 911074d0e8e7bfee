// Shared by the channel benchmarks: run a measurement N times after a warm-up, print the figures.

/** Runs `once(index)` (it answers milliseconds) BENCH_WARMUP times unrecorded, then BENCH_MESSAGES times, one after another. */
export const measure = async (once) => {
  const warmup = Number(process.env.BENCH_WARMUP ?? 5)
  const count = Number(process.env.BENCH_MESSAGES ?? 40)
  for (let index = 0; index < warmup; index++) await once(-1 - index)
  const times = []
  for (let index = 0; index < count; index++) times.push(await once(index))
  return times
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

/** Prints a human line and a JSON line (`bench/channels.mjs` reads the JSON one). */
export const report = (channel, times) => {
  const sorted = [...times].sort((a, b) => a - b)
  const figures = {
    channel,
    n: sorted.length,
    medianMs: Number(percentile(sorted, 50).toFixed(1)),
    p95Ms: Number(percentile(sorted, 95).toFixed(1)),
  }
  console.log(
    `${channel}: platform message → first outbound message, ${figures.n} messages: median ${figures.medianMs} ms, p95 ${figures.p95Ms} ms`,
  )
  console.log(JSON.stringify(figures))
}
