import type { Plugin } from "@aide/client"
import { type FormEvent, useId, useState } from "react"
import { client } from "./api.js"
import { ChannelAccess, ConnectionState } from "./ChannelAccess.js"
import { Icon } from "./Icon.js"
import { type ConfigField, modelToolName, pluginPatch, pluginState } from "./pluginForm.js"

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

/** A plugin: where it is, its tools, environment, alerts and problems, enable switch and settings. */
export function PluginCard({
  plugin,
  act,
}: {
  readonly plugin: Plugin
  readonly act: (a: () => Promise<unknown>) => void
}) {
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
      {state === "loaded" && <ConnectionState connection={plugin.provides.channels?.connection} />}
      {state === "loaded" &&
        plugin.configFields.some((field) => field.key === "pairing") &&
        plugin.config.pairing === true && <ChannelAccess plugin={plugin} />}
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
