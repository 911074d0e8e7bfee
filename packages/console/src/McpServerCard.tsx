import { type FormEvent, useState } from "react"
import { client } from "./api.js"

/** The tools of `/mcp`, each with what it can change (docs/mcp-server.md "Tools"). */
const tools: ReadonlyArray<readonly [name: string, what: string]> = [
  ["threads_search", "search conversations (read-only)"],
  ["memory_read", "read memory (read-only)"],
  ["inbox_list", "read the inbox (read-only)"],
  ["schedule_list", "read the schedule (read-only)"],
  ["ask", "talk to Aide as you"],
  ["approve", "approve Aide's tool calls"],
  ["memory_update", "overwrite working memory"],
  ["inbox_mark_read", "mark inbox messages read"],
  ["notify", "send you notifications"],
  ["schedule_create", "schedule tasks"],
  ["schedule_delete", "delete scheduled tasks"],
]

interface McpServerSettings {
  readonly enabled: boolean
  readonly tools: ReadonlyArray<string>
}

/** Settings → MCP server: `/mcp` on or off, and the tools MCP clients get. */
export function McpServerCard({
  settings,
  onSaved,
  onError,
}: {
  readonly settings: McpServerSettings
  readonly onSaved: (message: string) => void
  readonly onError: (cause: unknown) => void
}) {
  const [saving, setSaving] = useState(false)
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setSaving(true)
    client.config
      .patch({
        mcpServer: {
          enabled: form.get("enabled") === "on",
          tools: tools.map(([name]) => name).filter((name) => form.get(`tool-${name}`) === "on") as never,
        },
      })
      .then(() => onSaved("MCP server settings saved"), onError)
      .finally(() => setSaving(false))
  }
  return (
    <form className="card form" onSubmit={save} aria-labelledby="mcp-server-title">
      <h2 id="mcp-server-title">MCP server</h2>
      <p className="muted">
        MCP clients (desktop apps, coding assistants) reach Aide at <code>/mcp</code> with your sign-in, or through{" "}
        <code>aide mcp</code>. Each connected client is one of the sessions below: revoke it there.
      </p>
      <label className="checkbox">
        <input type="checkbox" name="enabled" defaultChecked={settings.enabled} /> Serve <code>/mcp</code>
      </label>
      <fieldset>
        <legend>Tools clients may use</legend>
        {tools.map(([name, what]) => (
          <label key={name} className="checkbox">
            <input type="checkbox" name={`tool-${name}`} defaultChecked={settings.tools.includes(name)} />{" "}
            <code>{name}</code>: {what}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="primary" disabled={saving}>
        Save
      </button>
    </form>
  )
}
