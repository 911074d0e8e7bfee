import type * as EffectVitestModule from "@effect/vitest"
import { effectVitestPeers, requirePeers } from "./Peers.js"

/**
 * `@effect/vitest`, loaded only after checking it is installed: a static `import` would be
 * resolved while Node links the module graph, before any check could run, and fail with its own
 * "Cannot find package". Every module of `/effect` and `/contracts` imports it from here.
 */
requirePeers(import.meta.url, effectVitestPeers)
const effectVitest: typeof EffectVitestModule = await import("@effect/vitest")

export const { describe, expect, it, layer } = effectVitest
export type { Vitest } from "@effect/vitest"
