import type { ConsentDetails } from "@aide/client"
import { useEffect, useId, useState } from "react"
import { client, errorText } from "./api.js"

/**
 * `/app/mcp/consent?<authorization request>`: an MCP client asks for access to `/mcp` through
 * OAuth (docs/mcp-server.md "OAuth"). The owner sees who asks (its own, unverified name), where
 * the answer goes (its redirect URI) and which tools; read-only ones come ticked, tools that
 * change something are ticked only by the owner. Approve or deny sends the browser back to it.
 */
export function McpConsent() {
  // The query `/oauth/authorize` got, passed on untouched: the server checks it again on decision.
  const request = globalThis.location.search.replace(/^\?/, "")
  const [details, setDetails] = useState<ConsentDetails | null>(null)
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set())
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const titleId = useId()
  useEffect(() => {
    client.mcpClients
      .inspect(request)
      .then((found) => {
        setDetails(found)
        setTicked(new Set(found.tools.filter((tool) => !tool.writes).map((tool) => tool.name)))
      })
      .catch((cause) => setError(errorText(cause)))
  }, [request])
  const decide = async (approve: boolean) => {
    setBusy(true)
    try {
      const { redirectTo } = await client.mcpClients.decide(request, approve, [...ticked])
      globalThis.location.assign(redirectTo)
    } catch (cause) {
      setError(errorText(cause))
      setBusy(false)
    }
  }
  const toggle = (name: string) =>
    setTicked((current) => {
      const next = new Set(current)
      if (next.has(name)) next.delete(name)
      else next.add(name)
      return next
    })
  return (
    <main className="auth">
      <section className="card auth-card consent" aria-labelledby={titleId}>
        <h1 id={titleId}>{details ? `Allow “${details.clientName}” to use Aide?` : "Authorize an MCP client"}</h1>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {!details && !error && <p className="loading">Loading…</p>}
        {details && (
          <>
            <p className="muted">
              The name is the client's own claim. After your answer the browser goes to{" "}
              <code className="redirect-uri">{details.redirectUri}</code>: approve only if you started this from that
              app.
            </p>
            <fieldset>
              <legend>Tools it may call</legend>
              {details.tools.length === 0 && <p className="muted">None: it asked for no tools.</p>}
              {details.tools.map((tool) => (
                <label key={tool.name}>
                  <input type="checkbox" checked={ticked.has(tool.name)} onChange={() => toggle(tool.name)} />{" "}
                  {tool.name}
                  {tool.writes ? " (changes things)" : " (reads only)"}
                </label>
              ))}
            </fieldset>
            <div className="actions">
              <button type="button" className="primary" disabled={busy} onClick={() => void decide(true)}>
                Approve
              </button>
              <button type="button" disabled={busy} onClick={() => void decide(false)}>
                Deny
              </button>
            </div>
          </>
        )}
      </section>
    </main>
  )
}
