import { client } from "./api.js"
import { useLoad } from "./useLoad.js"

/** Settings: the MCP clients holding an OAuth grant to `/mcp`, each revocable (its next call fails). */
export function McpClients() {
  const { data: clients, error, act } = useLoad(() => client.mcpClients.list())
  return (
    <section className="card" aria-labelledby="mcp-clients-title">
      <h2 id="mcp-clients-title">MCP clients</h2>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {clients?.length === 0 && <p className="muted">No MCP client is authorized.</p>}
      <ul className="sessions">
        {clients?.map((grant) => (
          <li key={grant.id}>
            <span>
              {grant.clientName} · {grant.redirectUris[0] ?? ""} · {grant.tools.join(", ") || "no tools"} · since{" "}
              {new Date(grant.createdAt).toLocaleString()}
            </span>
            <button
              type="button"
              aria-label={`Revoke MCP client ${grant.clientName}`}
              onClick={() => act(() => client.mcpClients.revoke(grant.id))}
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
