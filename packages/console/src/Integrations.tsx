import type { McpServer, Plugin } from "@aide/client"
import { type FormEvent, useEffect, useId, useState } from "react"
import { client, errorText } from "./api.js"
import { Icon } from "./Icon.js"
import { type ConfigField, modelToolName, pluginPatch, pluginState } from "./pluginForm.js"
import { useLoad } from "./useLoad.js"

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
        {server.tools.length} tools{server.requireApproval ? " · approval required" : ""}
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

/** One field of a plugin's settings form, by its declared type. */
function FieldInput({ field, value }: { readonly field: ConfigField; readonly value: unknown }) {
  const shown = value === undefined || value === null ? "" : String(value)
  const hint = field.description ? <span className="muted">{field.description}</span> : null
  if (field.type === "boolean")
    return (
      <label className="inline">
        <input name={field.key} type="checkbox" defaultChecked={value === true} />
        {field.label}
        {hint}
      </label>
    )
  if (field.type === "enum")
    return (
      <label>
        {field.label}
        <select name={field.key} defaultValue={shown} required={field.required === true}>
          {(field.required !== true || shown === "") && (
            <option value="">{field.required ? "Choose…" : "Not set"}</option>
          )}
          {(field.options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label ?? option.value}
            </option>
          ))}
        </select>
        {hint}
      </label>
    )
  return (
    <label>
      {field.label}
      <input
        name={field.key}
        type={field.type === "number" ? "number" : field.type === "password" ? "password" : "text"}
        step={field.type === "number" ? "any" : undefined}
        autoComplete={field.type === "password" ? "off" : undefined}
        defaultValue={shown}
        placeholder={field.placeholder}
        required={field.required === true}
      />
      {hint}
    </label>
  )
}

function PluginCard({ plugin, act }: { readonly plugin: Plugin; readonly act: (a: () => Promise<unknown>) => void }) {
  const titleId = useId()
  const [status, setStatus] = useState<string | null>(null)
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const values = pluginPatch(plugin.configFields, new FormData(event.currentTarget))
    setStatus(null)
    act(async () => {
      await client.config.patch({ plugins: { [plugin.id]: values } } as never)
      setStatus("Settings saved")
    })
  }
  const alerts = [
    ...(plugin.provides.tools?.alerts ?? []),
    ...(plugin.provides.agents?.alerts ?? []),
  ] as ReadonlyArray<{ level?: string; message?: string }>
  const state = pluginState(plugin)
  const tools = plugin.provides.tools?.tools ?? []
  return (
    <li className="card" aria-labelledby={titleId}>
      <h3 id={titleId}>{plugin.name}</h3>
      {plugin.description && <p>{plugin.description}</p>}
      <output className={`plugin-state ${state}`}>
        {state === "disabled" && "Disabled: its code does not run."}
        {state === "blocked" && "Not started: it needs the settings or variables below."}
        {state === "loading" && "Starting…"}
        {state === "failed" && "Failed to load (see below)."}
        {state === "loaded" &&
          `Loaded${plugin.provides.tools ? `: ${tools.length} tool${tools.length === 1 ? "" : "s"}` : ""}.`}
      </output>
      {state === "loaded" && tools.length > 0 && (
        <ul className="plugin-tools" aria-label="Tools">
          {tools.map((tool) => {
            const modelName = modelToolName(plugin.id, tool.id)
            return (
              <li key={tool.id}>
                <strong>{tool.name}</strong>
                {modelName && (
                  <>
                    {" "}
                    · the model calls it <code>{modelName}</code>
                  </>
                )}
                {tool.description && <div className="muted">{tool.description}</div>}
              </li>
            )
          })}
        </ul>
      )}
      {plugin.envVars.length > 0 && (
        <ul className="env" aria-label="Environment">
          {plugin.envVars.map((v) => (
            <li key={v.name}>
              <code>{v.name}</code>{" "}
              {v.configured ? (
                <>
                  <Icon name="check" size={14} /> set
                </>
              ) : v.required ? (
                <span className="error">
                  <Icon name="cross" size={14} /> missing (required)
                </span>
              ) : (
                "not set"
              )}
            </li>
          ))}
        </ul>
      )}
      {alerts.length > 0 && (
        <ul className="alerts" aria-label="Alerts">
          {alerts.map((alert, i) => (
            <li key={i} className={alert.level === "info" ? "muted" : "error"}>
              {alert.level ? `${alert.level}: ` : ""}
              {alert.message ?? JSON.stringify(alert)}
            </li>
          ))}
        </ul>
      )}
      {plugin.validationErrors.length > 0 && (
        <ul className="alerts" aria-label="Problems">
          {plugin.validationErrors.map((problem) => (
            <li key={problem} className="error">
              {problem}
            </li>
          ))}
        </ul>
      )}
      <label className="inline">
        <input
          type="checkbox"
          checked={plugin.enabled}
          onChange={(event) =>
            act(() => client.config.patch({ plugins: { [plugin.id]: { enabled: event.target.checked } } } as never))
          }
        />
        Enabled
      </label>
      {plugin.configFields.length > 0 && (
        <form
          className="form"
          onSubmit={submit}
          aria-label={`${plugin.name} settings`}
          key={JSON.stringify(plugin.config)}
        >
          {plugin.configFields.map((field) => (
            <FieldInput key={field.key} field={field} value={plugin.config[field.key]} />
          ))}
          <button type="submit">Save settings</button>
          {status && <output>{status}</output>}
        </form>
      )}
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
  const connecting =
    servers.some((server) => server.enabled && server.tools.length === 0 && server.error === null) ||
    plugins.some((plugin) => pluginState(plugin) === "loading")
  // biome-ignore lint/correctness/useExhaustiveDependencies: `data` re-arms the timer after each load
  useEffect(() => {
    if (!connecting) return
    const timer = setTimeout(reload, 1_000)
    return () => clearTimeout(timer)
  }, [connecting, reload, data])
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const target = String(form.get("target")).trim()
    const [command, ...args] = target.split(/\s+/)
    try {
      await client.mcpServers.create({
        id: String(form.get("id")),
        ...(/^https?:/.test(target) ? { url: target } : { command: command ?? "", args }),
        requireApproval: form.get("requireApproval") === "on",
      })
      setAddError(null)
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
          <input name="id" required pattern="[a-z0-9][a-z0-9_-]*" />
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
