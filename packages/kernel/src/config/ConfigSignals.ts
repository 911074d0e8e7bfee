import { Duration, Effect, type Scope } from "effect"
import { followRereads } from "../replicas/ReplicaSignals.js"

/** The channel of config changes: the message carries nothing, receivers re-read the store. */
export const channel = "aide.config.changed"

/** The periodic re-read: a change whose message was lost (Redis briefly away) shows within this. */
export const safetyNetInterval = Duration.seconds(15)

/**
 * Config changes shared with the other replicas, when a `ReplicaSignals` is provided: every
 * replica runs `reread` when one announces a change, and every `safetyNetInterval` anyway, so
 * MCP servers, plugins and the scheduler (which follow `AppConfig.changes`) reconcile
 * everywhere. Without signals (one process) nothing is followed. Returns the announcement.
 */
export const follow = (reread: Effect.Effect<void>): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.map(followRereads(channel, reread, safetyNetInterval), (announce) => announce(""))
