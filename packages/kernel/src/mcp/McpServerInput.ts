import { Schema } from "effect"
import { McpServerConfig } from "../config/ConfigModel.js"
import * as MergePatch from "../config/MergePatch.js"
import * as Problems from "../validation/Problems.js"

/**
 * `POST /api/mcp-servers`: `{ id?, ...config }`, the same change as PATCH /api/config with
 * `{ mcpServers: { <id>: config } }`. The id is optional because the reference's own client never
 * sends one (the server makes a UUID). Its problems read as that patch's would, under
 * `mcpServers.<id>`; rules across fields (a command or a url) are checked on the merged config.
 */

const idInvalid = "id must be a non-empty string when given"
/** JSON may carry it, but the config keeps no server under it (a merge patch ignores the key). */
const reservedId = "__proto__"
const idReserved = `id ${JSON.stringify(reservedId)} is reserved`

const fields = Schema.extend(
  Schema.Struct({
    id: Schema.optional(
      Schema.String.pipe(
        Schema.minLength(1),
        Schema.filter((id) => id !== reservedId),
      ),
    ).annotations({
      description: "The server's id: its key under mcpServers; a new UUID when absent",
    }),
  }),
  MergePatch.schemaOf(McpServerConfig),
)

const problemsOf = MergePatch.problemsOf(fields)

const describe = (input: unknown) => {
  if (!MergePatch.isJsonObject(input)) return "request body must be a JSON object"
  // The label under which problems are reported when the server will make the id.
  const id = input.id === undefined ? "<new id>" : input.id
  if (typeof id !== "string" || id === "") return idInvalid
  if (id === reservedId) return idReserved
  const problems = problemsOf(input).map((issue) => ({
    ...issue,
    path: ["mcpServers", id, ...issue.path],
    // The config's server has no `id` key: it is not one of the keys expected there.
    message: issue.message.replace(/^(is unexpected, expected: )"id" \| /, "$1"),
  }))
  return Problems.describeIssues(problems, "config").join("; ")
}

/** The body of `POST /api/mcp-servers`; unknown fields are left to the config to refuse. */
export const NewMcpServer = fields.annotations({
  identifier: "NewMcpServer",
  description:
    "id (optional: a new UUID when absent) and the server's config (command/args/env/cwd for stdio, url/headers/oauth for HTTP, name, " +
    "enabled, requireApproval): the same change as PATCH /api/config with { mcpServers: { <id>: config } }",
  parseOptions: { errors: "all", onExcessProperty: "preserve" },
  message: Problems.worded(describe),
})
export type NewMcpServer = typeof NewMcpServer.Type
