/**
 * The serverless module on a plain Node host: Node's http module calls its `fetch` through
 * `NodeAdapter.toNodeListener`, the way a platform would. `PORT` (default 4111), `HOST`.
 */
import { createServer } from "node:http"
import { NodeAdapter } from "@aide/server"
import app from "./aide.js"

export const listener = NodeAdapter.toNodeListener((request, context) => app.fetch(request, undefined, context))

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 4111)
  createServer(listener).listen(port, process.env.HOST ?? "127.0.0.1", () => {
    console.log(`aide (serverless module) on http://${process.env.HOST ?? "127.0.0.1"}:${port}`)
  })
}
