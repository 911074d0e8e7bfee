import { type FormEvent, useState } from "react"
import { client, errorText } from "./api.js"
import { useLoad } from "./useLoad.js"

type TestResult = { readonly provider: string; readonly text: string; readonly ok: boolean }

/** What a test answered, in words. */
const testText = (result: { ok: boolean; models: ReadonlyArray<string>; listed: boolean; error?: string }) => {
  if (!result.ok) return `Failed: ${result.error ?? "no answer"}`
  if (!result.listed) return "Saved; this provider does not list its models."
  const shown = result.models.slice(0, 8).join(", ")
  return `Works: ${result.models.length} model${result.models.length === 1 ? "" : "s"}${shown ? ` (${shown}${result.models.length > 8 ? ", …" : ""})` : ""}.`
}

/**
 * Settings → Connections: a provider's key, or an OpenAI-compatible server's base URL and key,
 * set, tested and removed without a restart. Values are sent once and never shown again (the
 * server answers `••••` and the last 4 characters at most); a provider the server's environment
 * sets is shown as such and cannot be edited here.
 */
export function Connections() {
  const { data, error, act, reload } = useLoad(() => Promise.all([client.models.list(), client.models.connections()]))
  const [providers, state] = data ?? []
  const [chosen, setChosen] = useState("")
  const [result, setResult] = useState<TestResult | null>(null)
  const [formError, setFormError] = useState<string | null>(null)
  const environment = new Set(state?.environment ?? [])
  const byId = new Map((providers ?? []).map((provider) => [provider.id, provider]))
  const editable = (providers ?? []).filter((provider) => !environment.has(provider.id) && provider.envVars.length > 0)
  const selected = byId.get(chosen) ?? editable[0]

  const test = (provider: string) =>
    act(async () => {
      const tested = await client.models.test(provider)
      setResult({ provider, ok: tested.ok, text: testText(tested) })
    })

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (selected === undefined) return
    const formElement = event.currentTarget
    const form = new FormData(formElement)
    const values: Record<string, string> = {}
    for (const name of selected.envVars) {
      const value = String(form.get(name) ?? "").trim()
      if (value !== "") values[name] = value
    }
    try {
      await client.models.connect(selected.id, values)
      setFormError(null)
      formElement.reset()
      const tested = await client.models.test(selected.id)
      setResult({ provider: selected.id, ok: tested.ok, text: testText(tested) })
      reload()
    } catch (cause) {
      setFormError(errorText(cause))
    }
  }

  return (
    <section className="card connections" aria-labelledby="connections-title">
      <h2 id="connections-title">Connections</h2>
      <p className="muted">
        AI providers' keys and addresses, used at once. Keys are stored encrypted and never shown again. Variables set
        in the server's environment win.
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <ul className="connection-list">
        {state?.environment.map((id) => (
          <li key={`env-${id}`}>
            <span>
              <strong>{byId.get(id)?.name ?? id}</strong>: set by the environment (wins)
            </span>
            <button type="button" onClick={() => test(id)}>
              Test
            </button>
          </li>
        ))}
        {state?.connections
          .filter((connection) => !connection.setByEnvironment)
          .map((connection) => (
            <li key={connection.provider}>
              <span>
                <strong>{byId.get(connection.provider)?.name ?? connection.provider}</strong>:{" "}
                {connection.readable
                  ? connection.variables.map((variable) => `${variable.name} ${variable.hint}`).join(", ")
                  : "cannot be read with this server's secret: set it again"}
              </span>
              <span className="actions">
                <button type="button" onClick={() => test(connection.provider)}>
                  Test
                </button>
                <button
                  type="button"
                  className="danger"
                  aria-label={`Remove the connection of ${byId.get(connection.provider)?.name ?? connection.provider}`}
                  onClick={() =>
                    act(async () => {
                      await client.models.disconnect(connection.provider)
                      setResult(null)
                    })
                  }
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
      </ul>
      {result && (
        <output className={result.ok ? undefined : "error"}>
          {byId.get(result.provider)?.name ?? result.provider}: {result.text}
        </output>
      )}
      {selected && (
        <form className="form" onSubmit={save} aria-label="Add a connection">
          <label>
            Provider
            <select value={selected.id} onChange={(event) => setChosen(event.target.value)}>
              {editable.map((provider) => (
                <option key={provider.id} value={provider.id}>
                  {provider.name}
                </option>
              ))}
            </select>
          </label>
          {selected.envVars.map((name) => (
            <label key={`${selected.id}-${name}`}>
              {name}
              <input
                name={name}
                type={name.endsWith("_URL") ? "url" : "password"}
                autoComplete="off"
                placeholder={name.endsWith("_URL") ? "http://127.0.0.1:11434/v1" : ""}
              />
            </label>
          ))}
          {formError && (
            <p role="alert" className="error field-error">
              {formError}
            </p>
          )}
          <button type="submit" className="primary">
            Save and test
          </button>
        </form>
      )}
    </section>
  )
}
