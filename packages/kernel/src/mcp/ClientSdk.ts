import { Effect } from "effect"
import type { clientSdk } from "./internal/clientSdk.js"

/** The parts of the MCP SDK's client Aide uses. */
export type ClientSdk = typeof clientSdk

/**
 * The MCP SDK's client, evaluated on the first connection or OAuth step rather than at start:
 * with zod's schemas of every MCP message it holds ~9 MiB of heap, which a server without MCP
 * servers never needs (issue 38). Node caches the module: later calls cost a resolved promise.
 */
export const load: Effect.Effect<ClientSdk> = Effect.promise(() =>
  import("./internal/clientSdk.js").then((module) => module.clientSdk),
)
