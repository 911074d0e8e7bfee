import type { Plugin } from "@aide/client"
import { client } from "./api.js"
import { useLoad } from "./useLoad.js"

type Connection = NonNullable<NonNullable<Plugin["provides"]["channels"]>["connection"]>

/** A realtime channel's connection: a failing one says so, with why (the plugin's secrets masked). */
export function ConnectionState({ connection }: { readonly connection: Connection | undefined }) {
  if (connection === undefined) return null
  if (connection.state === "reconnecting")
    return (
      <output className="error">
        Connection failing ({connection.failures} in a row
        {connection.reason ? `): ${connection.reason}` : ")"}. Retrying with backoff.
      </output>
    )
  if (connection.state === "standby")
    return <p className="muted">Standby: another server holds this channel's connection.</p>
  return <p className="muted">Connected.</p>
}

/**
 * Who may talk through a channel plugin: pairing requests of unknown senders (approve or reject
 * their one-time code) and the senders approved so far. Shown for plugins declaring `pairing`.
 */
export function ChannelAccess({ plugin }: { readonly plugin: Plugin }) {
  const { data, error, reload, act } = useLoad(() => client.plugins.pairings(plugin.id), [plugin.id])
  const pairings = data?.pairings ?? []
  const senders = data?.senders ?? []
  return (
    <section className="channel-access" aria-label="Pairing">
      <h4>
        Pairing requests{" "}
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </h4>
      {error && <p className="error">{error}</p>}
      {pairings.length === 0 ? (
        <p className="muted">No one is waiting. Unknown senders get no answer until you approve their code here.</p>
      ) : (
        <ul aria-label="Pairing requests">
          {pairings.map((request) => (
            <li key={request.code}>
              <code>{request.code}</code> from <code>{request.senderId}</code>
              {request.senderName && <> ({request.senderName})</>}
              <span className="muted"> · expires {new Date(request.expiresAt).toLocaleTimeString()}</span>{" "}
              <button type="button" onClick={() => act(() => client.plugins.approvePairing(plugin.id, request.code))}>
                Approve {request.code}
              </button>{" "}
              <button type="button" onClick={() => act(() => client.plugins.rejectPairing(plugin.id, request.code))}>
                Reject {request.code}
              </button>
            </li>
          ))}
        </ul>
      )}
      {senders.length > 0 && (
        <ul aria-label="Approved senders">
          {senders.map((sender) => (
            <li key={`${sender.channelId}:${sender.senderId}`}>
              <code>{sender.senderId}</code>
              {sender.senderName && <> ({sender.senderName})</>} may talk{" "}
              <button
                type="button"
                onClick={() => act(() => client.plugins.removeSender(plugin.id, sender.channelId, sender.senderId))}
              >
                Remove {sender.senderId}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
