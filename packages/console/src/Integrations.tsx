import type { McpServer } from "@aide/client"
import { type FormEvent, useEffect, useState } from "react"
import { client, errorText } from "./api.js"
import { PluginCard } from "./PluginCard.js"
import { pluginState } from "./pluginForm.js"
import { useLoad } from "./useLoad.js"

/**
 * Enabled, no tools and no error: still connecting (a stdio server's first `npx` download takes
 * tens of seconds), not a server with nothing to offer.
 */
const starting = (server: McpServer) => server.enabled && server.tools.length === 0 && server.error === null

function ServerCard({
  server,
  act,
}: {
  readonly server: McpServer
  readonly act: (a: () => Promise<unknown>) => void
}) {
  return (
    <li className="card">
      <h3>
        {server.name} <span className="muted">({server.type})</span>
      </h3>
      {server.error && <p className="error">{server.error}</p>}
      {server.authUrl && (
        <a className="button primary" href={server.authUrl} target="_blank" rel="noopener noreferrer">
          Authorize
        </a>
      )}
      <p className="muted">
        {starting(server) ? "starting…" : `${server.tools.length} ${server.tools.length === 1 ? "tool" : "tools"}`}
        {server.requireApproval ? " · approval required" : ""}
      </p>
      <ul className="tags">
        {server.tools.map((tool) => (
          <li key={tool.id} title={tool.description}>
            {tool.name}
          </li>
        ))}
      </ul>
      <div className="actions">
        <label className="inline">
          <input
            type="checkbox"
            checked={server.enabled}
            onChange={(event) =>
              act(() =>
                client.config.patch({ mcpServers: { [server.id]: { enabled: event.target.checked } } } as never),
              )
            }
          />
          Enabled
        </label>
        <button
          type="button"
          className="danger"
          onClick={() => act(() => client.config.patch({ mcpServers: { [server.id]: null } } as never))}
        >
          Remove
        </button>
      </div>
    </li>
  )
}

/** MCP servers and plugins: the assistant's tools. */
export function Integrations() {
  const { data, error, act, reload } = useLoad(() => Promise.all([client.mcpServers.list(), client.plugins.list()]))
  const [servers, plugins] = data ?? [[], []]
  const [addError, setAddError] = useState<string | null>(null)
  // A server just added lists no tools and no error while it connects, a plugin just enabled is
  // "Loading": look again until they have settled.
  const connecting = servers.some(starting) || plugins.some((plugin) => pluginState(plugin) === "loading")
  // biome-ignore lint/correctness/useExhaustiveDependencies: `data` re-arms the timer after each load
  useEffect(() => {
    if (!connecting) return
    const timer = setTimeout(reload, 1_000)
    return () => clearTimeout(timer)
  }, [connecting, reload, data])
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const form = new FormData(element)
    const target = String(form.get("target")).trim()
    const [command, ...args] = target.split(/\s+/)
    try {
      await client.mcpServers.create({
        id: String(form.get("id")),
        ...(/^https?:/.test(target) ? { url: target } : { command: command ?? "", args }),
        requireApproval: form.get("requireApproval") === "on",
      })
      setAddError(null)
      element.reset()
      reload()
    } catch (cause) {
      setAddError(errorText(cause))
    }
  }
  return (
    <section className="page" aria-labelledby="tools-title">
      <h1 id="tools-title">Tools</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <h2>MCP servers</h2>
      <ul className="cards">
        {servers.map((server) => (
          <ServerCard key={server.id} server={server} act={act} />
        ))}
      </ul>
      <form className="card form" onSubmit={add} aria-labelledby="add-mcp">
        <h3 id="add-mcp">Add an MCP server</h3>
        <label>
          Id
          <input
            name="id"
            required
            // Chromium compiles \`pattern\` with the \`v\` flag, where a bare "-" in a class is invalid
            // (and the check silently off): escaped.
            pattern="[a-z0-9][a-z0-9_\-]*"
            title="lower-case letters, digits, _ and -, starting with a letter or digit"
          />
        </label>
        <label>
          Command (stdio) or URL (HTTP)
          <input name="target" required placeholder="npx -y @modelcontextprotocol/server-everything" />
        </label>
        <label className="inline">
          <input name="requireApproval" type="checkbox" defaultChecked /> Ask before each tool call
        </label>
        {addError && (
          <p role="alert" className="error">
            {addError}
          </p>
        )}
        <button type="submit" className="primary">
          Add server
        </button>
      </form>
      <h2>Plugins</h2>
      <ul className="cards">
        {plugins.map((plugin) => (
          <PluginCard key={plugin.id} plugin={plugin} act={act} />
        ))}
      </ul>
    </section>
  )
}
