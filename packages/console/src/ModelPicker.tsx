import type { Provider } from "@aide/client"
import { useEffect, useId, useRef, useState } from "react"
import { client, errorText } from "./api.js"
import { Icon } from "./Icon.js"
import { groupModels, setupHint } from "./modelGroups.js"

interface Selection {
  readonly provider: string
  readonly model: string
}

/**
 * The operator model (config `models.operator`): a button naming it, opening a searchable list of
 * the models of the configured providers, grouped by provider; the others say what to set. When
 * the current model cannot answer (its provider is not configured), a notice says so before the
 * first message fails.
 */
export function ModelPicker() {
  const [providers, setProviders] = useState<ReadonlyArray<Provider>>([])
  const [current, setCurrent] = useState<Selection | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [open, setOpen] = useState(false)
  const [query, setQuery] = useState("")
  const menuId = useId()
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => {
    void Promise.all([client.models.list(), client.config.get()])
      .then(([list, config]) => {
        setProviders(list)
        setCurrent(config.models.operator)
      })
      .catch((cause) => setError(errorText(cause)))
  }, [])
  useEffect(() => {
    if (!open) return
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === "Escape" : !root.current?.contains(event.target as Node))
        setOpen(false)
    }
    document.addEventListener("pointerdown", close)
    document.addEventListener("keydown", close)
    return () => {
      document.removeEventListener("pointerdown", close)
      document.removeEventListener("keydown", close)
    }
  }, [open])
  const provider = providers.find((p) => p.id === current?.provider)
  const ready = provider?.configured === true
  const choose = (selection: Selection) => {
    setCurrent(selection)
    setOpen(false)
    setQuery("")
    void client.config
      .patch({ models: { operator: selection } })
      .then(() => setError(null))
      .catch((cause) => setError(errorText(cause)))
  }
  const { ready: groups, unready } = groupModels(providers, query)
  const label = current === null ? "Model" : `${provider?.name ?? current.provider} · ${current.model}`
  return (
    <>
      <div className="model-picker" ref={root}>
        <button
          type="button"
          className={`model-button ${current !== null && providers.length > 0 && !ready ? "unready" : ""}`}
          aria-label={`Model: ${label}`}
          aria-expanded={open}
          aria-controls={menuId}
          title={label}
          onClick={() => setOpen((o) => !o)}
        >
          <span className="label">
            {current !== null && <span className="provider">{provider?.name ?? current.provider} · </span>}
            {current?.model ?? "Model"}
          </span>
          <Icon name="chevron" size={16} />
        </button>
        {open && (
          <div className="model-menu" id={menuId} role="dialog" aria-label="Choose a model">
            <input
              type="search"
              aria-label="Search models"
              placeholder="Search models"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              autoFocus
            />
            {groups.length === 0 && <p className="muted">No configured model matches.</p>}
            {groups.map((group) => (
              <section key={group.provider.id} aria-label={group.provider.name}>
                <h3>{group.provider.name}</h3>
                <ul>
                  {group.models.map((model) => {
                    const selected = current?.provider === group.provider.id && current.model === model
                    return (
                      <li key={model}>
                        <button
                          type="button"
                          aria-current={selected ? "true" : undefined}
                          onClick={() => choose({ provider: group.provider.id, model })}
                        >
                          {model}
                        </button>
                      </li>
                    )
                  })}
                </ul>
              </section>
            ))}
            {unready.length > 0 && (
              <details>
                <summary>Not configured ({unready.length})</summary>
                {unready.map((p) => (
                  <p key={p.id} className="setup">
                    <strong>{p.name}</strong>: {setupHint(p)} in Settings → Connections.
                  </p>
                ))}
              </details>
            )}
          </div>
        )}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </div>
      {current !== null && providers.length > 0 && !ready && (
        <p role="alert" className="notice">
          {providers.some((p) => p.configured)
            ? `${provider?.name ?? current.provider} is not configured (${provider ? setupHint(provider) : "unknown provider"}): choose a configured model.`
            : `No AI provider is configured: ${provider ? setupHint(provider) : "set a provider's key"} (or another provider's) in Settings → Connections.`}
        </p>
      )}
    </>
  )
}
