import type { Provider } from "@aide/client"
import { useEffect, useState } from "react"
import { client, errorText } from "./api.js"

/** The operator model (config `models.operator`), chosen among the providers `/api/models` lists. */
export function ModelPicker() {
  const [providers, setProviders] = useState<ReadonlyArray<Provider>>([])
  const [current, setCurrent] = useState<string>("")
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    void Promise.all([client.models.list(), client.config.get()])
      .then(([list, config]) => {
        setProviders(list)
        setCurrent(`${config.models.operator.provider}/${config.models.operator.model}`)
      })
      .catch((cause) => setError(errorText(cause)))
  }, [])
  const options = providers.flatMap((provider) =>
    provider.models.map((model) => ({
      value: `${provider.id}/${model}`,
      label: `${provider.name} · ${model}`,
      provider,
    })),
  )
  const known = options.some((option) => option.value === current)
  return (
    <label className="model-picker">
      <span className="visually-hidden">Model</span>
      <select
        aria-label="Model"
        value={current}
        title={error ?? undefined}
        onChange={(event) => {
          const value = event.target.value
          const slash = value.indexOf("/")
          setCurrent(value)
          void client.config
            .patch({ models: { operator: { provider: value.slice(0, slash), model: value.slice(slash + 1) } } })
            .catch((cause) => setError(errorText(cause)))
        }}
      >
        {!known && current !== "" && <option value={current}>{current}</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value} disabled={!option.provider.configured}>
            {option.label}
            {option.provider.configured ? "" : " (not configured)"}
          </option>
        ))}
      </select>
    </label>
  )
}
