import { ToolRegistry } from "@aide/kernel"
import { Effect } from "effect"

/** A tool needing approval whose executions the browser suite counts (as in the server's chat-approval tests). */
export const probeTool = () => {
  const executions: Array<unknown> = []
  const tools = ToolRegistry.source({
    id: "probe",
    kind: "plugin",
    tools: Effect.sync(() => [
      {
        name: "delete_file",
        description: "Deletes a file",
        inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        requireApproval: true,
        execute: (input: unknown) =>
          Effect.sync(() => {
            executions.push(input)
            return { deleted: (input as { path: string }).path }
          }),
      },
    ]),
  })
  return { executions, tools }
}
