import { useEffect, useState } from "react"
import { client } from "./api.js"
import { useLoad } from "./useLoad.js"

function Gauge({ label, value, max }: { readonly label: string; readonly value: number; readonly max: number }) {
  return (
    <label className="gauge">
      {label}: {value.toLocaleString()} / {max.toLocaleString()} tokens
      <meter min={0} max={max} value={value} low={max * 0.7} high={max * 0.9} />
    </label>
  )
}

/** Working memory (editable), the observation log, and how close observation/reflection are. */
export function Memory() {
  const { data, error, act } = useLoad(() =>
    Promise.all([client.memory.working(), client.memory.observations(), client.memory.record()]),
  )
  const [working, observations, record] = data ?? []
  const [text, setText] = useState("")
  const [saved, setSaved] = useState(false)
  useEffect(() => setText(working?.content ?? ""), [working])
  return (
    <section className="page" aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <form
        className="card form"
        onSubmit={(event) => {
          event.preventDefault()
          act(async () => {
            await client.memory.setWorking(text)
            setSaved(true)
          })
        }}
      >
        <label>
          Working memory
          <textarea
            rows={10}
            value={text}
            onChange={(event) => {
              setText(event.target.value)
              setSaved(false)
            }}
          />
        </label>
        <div className="actions">
          <button type="submit" className="primary">
            Save
          </button>
          {saved && <output>Saved</output>}
        </div>
      </form>
      <section className="card" aria-labelledby="gauges-title">
        <h2 id="gauges-title">Observational memory</h2>
        {record?.record && record.thresholds ? (
          <>
            <Gauge label="Observer" value={record.record.pendingMessageTokens} max={record.thresholds.messageTokens} />
            <Gauge
              label="Reflector"
              value={record.record.observationTokenCount}
              max={record.thresholds.observationTokens}
            />
          </>
        ) : (
          <p className="muted">No observations recorded yet.</p>
        )}
        <h3>Observations</h3>
        <pre className="observations">{observations?.observations ?? "None yet."}</pre>
      </section>
    </section>
  )
}
