/**
 * Aide as the module a serverless host loads: `export default { fetch }`, configured from the
 * environment like `aide-server` (docs/configuration.md). In serverless mode nothing outlives a
 * request: a platform cron calls `POST /api/schedule/run-due` (Bearer `AIDE_CRON_SECRET`) for
 * scheduled tasks, and Cloudflare-style hosts pass `ctx.waitUntil` for the work a chat leaves
 * behind (the thread's title, memory observation). See docs/operations.md, "Serverless".
 */
import { Server, ServerConfig } from "@aide/server"
import { Effect } from "effect"

const config = Effect.runSync(ServerConfig.fromEnv)
const aide = Server.webHandler({ ...config, serverless: true })

/** What hosts pass beside the request: Cloudflare's `ctx` has `waitUntil`; serve.ts passes the client's address. */
interface PlatformContext {
  readonly waitUntil?: (work: Promise<unknown>) => void
  readonly remoteAddress?: string
}

export default {
  fetch: (request: Request, _env?: unknown, context: PlatformContext = {}) =>
    aide.handler(request, {
      ...(context.waitUntil === undefined ? {} : { waitUntil: (work) => context.waitUntil?.(work) }),
      ...(context.remoteAddress === undefined ? {} : { remoteAddress: context.remoteAddress }),
    }),
}

/** Closes the database (tests, and hosts with a shutdown hook). */
export const dispose = aide.dispose
