// The per-request cost of GET /metrics' accounting (RequestMetrics: route label, counter,
// histogram, pre-response hook), measured in isolation: the same trivial HttpApp as a web
// handler with and without the middleware, alternating rounds, CPU µs per request (median).
// A whole request costs ~200–500 µs CPU here (bench/README.md), so this is the share to compare.
//
//   npx tsx bench/metrics-overhead.ts        # env ROUNDS [7], REQUESTS [20000]
// @ts-expect-error the server's own copy, untyped from here (the root installs no @effect/platform)
import * as Platform from "../packages/server/node_modules/@effect/platform/dist/esm/index.js"
import * as RequestMetrics from "../packages/server/src/metrics/RequestMetrics.js"

const { HttpApp, HttpServerResponse } = Platform
const rounds = Number(process.env.ROUNDS ?? 7)
const requests = Number(process.env.REQUESTS ?? 20_000)

const app = HttpServerResponse.text("ok")
const variants = {
  without: HttpApp.toWebHandler(app),
  with: HttpApp.toWebHandler(RequestMetrics.middleware(app)),
}
// Concrete paths of real routes: the label cache, as in a running server.
const urls = ["http://aide.local/", "http://aide.local/api/auth/sessions", "http://aide.local/api/threads/3f0c"]

const cpuPerRequest = async (handler: (request: Request) => Promise<Response>) => {
  const before = process.cpuUsage()
  for (let i = 0; i < requests; i++) await (await handler(new Request(urls[i % urls.length]!))).text()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / requests
}
const median = (values: Array<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const results: Record<string, Array<number>> = { without: [], with: [] }
for (const handler of Object.values(variants)) await cpuPerRequest(handler) // warm-up
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (["without", "with"] as const) : (["with", "without"] as const)
  for (const name of order) results[name]!.push(await cpuPerRequest(variants[name]))
}
const without = median(results.without!)
const withMetrics = median(results.with!)
console.log(`without RequestMetrics: ${without.toFixed(2)} µs CPU/req`)
console.log(`with RequestMetrics:    ${withMetrics.toFixed(2)} µs CPU/req`)
console.log(
  `overhead:               ${(withMetrics - without).toFixed(2)} µs CPU/req (median of ${rounds} alternating rounds of ${requests})`,
)
