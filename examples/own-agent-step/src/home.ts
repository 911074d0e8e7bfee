import { ToolRegistry } from "@aide/kernel"
import { Effect } from "effect"

/** The doors this pretend home has unlocked, in order. */
export const unlocked: Array<string> = []

/**
 * A tool of the host's, as `Kernel.layer({ tools })` takes it: `home_unlock_door`, which the owner
 * must approve. The scripted step runs it through the toolset Aide gives it, approval included.
 */
export const homeTools = ToolRegistry.source({
  id: "home",
  kind: "plugin",
  tools: Effect.succeed([
    {
      name: "unlock_door",
      description: "Unlocks a door of the house",
      inputSchema: { type: "object", properties: { door: { type: "string" } }, required: ["door"] },
      requireApproval: true,
      execute: (input: unknown) =>
        Effect.sync(() => {
          unlocked.push(String((input as { readonly door?: unknown }).door))
          return { unlocked: true }
        }),
    },
  ]),
})
