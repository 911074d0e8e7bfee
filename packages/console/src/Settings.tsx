import { AideError } from "@aide/client"
import { type FormEvent, useState } from "react"
import { minPasswordLength, passwordRule } from "./Auth.js"
import { client, errorText } from "./api.js"
import { BrowserNotifications } from "./BrowserNotifications.js"
import { Connections } from "./Connections.js"
import { McpClients } from "./McpClients.js"
import { McpServerCard } from "./McpServerCard.js"
import { useLoad } from "./useLoad.js"

type PasswordProblem = { readonly field: "current" | "next"; readonly text: string }

/** Which field a refused change is about: a wrong current password, else the new one. */
const passwordProblem = (cause: unknown): PasswordProblem => ({
  field: cause instanceof AideError && cause.code === "invalid_credentials" ? "current" : "next",
  text:
    cause instanceof AideError && cause.code === "invalid_credentials"
      ? "That is not your current password."
      : errorText(cause),
})

/** Identity, personality, time zone; provider connections; sessions (revoke, sign out everywhere); password. */
export function Settings({ onSignedOut }: { readonly onSignedOut: () => void }) {
  const { data, error, act } = useLoad(() => Promise.all([client.config.get(), client.auth.sessions()]))
  const [config, sessions] = data ?? []
  const [status, setStatus] = useState<string | null>(null)
  const [passwordError, setPasswordError] = useState<PasswordProblem | null>(null)
  const saveProfile = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    act(async () => {
      await client.config.patch({
        identity: { name: String(form.get("name")) },
        personality: { systemPrompt: String(form.get("systemPrompt")) },
        timezone: String(form.get("timezone")),
      })
      setStatus("Saved")
    })
  }
  const changePassword = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const formElement = event.currentTarget
    const form = new FormData(formElement)
    const next = String(form.get("next"))
    if (next.length < minPasswordLength)
      return setPasswordError({ field: "next", text: `Too short: ${passwordRule.toLowerCase()}` })
    try {
      await client.auth.changePassword(String(form.get("current")), next)
      setPasswordError(null)
      setStatus("Password changed; other sessions were signed out")
      formElement.reset()
    } catch (cause) {
      setPasswordError(passwordProblem(cause))
    }
  }
  return (
    <section className="page" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {status && <output>{status}</output>}
      {config && (
        <form className="card form" onSubmit={saveProfile} aria-labelledby="profile-title">
          <h2 id="profile-title">Assistant</h2>
          <label>
            Name
            <input name="name" defaultValue={config.identity.name} />
          </label>
          <label>
            Personality (system prompt)
            <textarea name="systemPrompt" rows={5} defaultValue={config.personality.systemPrompt} />
          </label>
          <label>
            Time zone
            <input name="timezone" defaultValue={config.timezone} />
          </label>
          <p className="muted">
            Model: {config.models.operator.provider} / {config.models.operator.model} (choose it above the chat)
          </p>
          <button type="submit" className="primary">
            Save
          </button>
        </form>
      )}
      {config && (
        <McpServerCard
          settings={config.mcpServer}
          onSaved={setStatus}
          onError={(cause) => setStatus(errorText(cause))}
        />
      )}
      <Connections />
      <BrowserNotifications />
      <section className="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        <ul className="sessions">
          {sessions?.map((session) => (
            <li key={session.id}>
              <span>
                {session.userAgent || "unknown client"} · {session.ip} · since{" "}
                {new Date(session.createdAt).toLocaleString()}
                {session.current && <strong> (this browser)</strong>}
              </span>
              <button
                type="button"
                aria-label={`Revoke session ${session.id}`}
                onClick={() =>
                  act(async () => {
                    const result = await client.auth.revokeSession(session.id)
                    if (result.loggedOut) onSignedOut()
                  })
                }
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
        <div className="actions">
          <button type="button" onClick={() => void client.auth.logout().finally(onSignedOut)}>
            Sign out
          </button>
          <button type="button" className="danger" onClick={() => void client.auth.revokeAll().finally(onSignedOut)}>
            Sign out everywhere
          </button>
        </div>
      </section>
      <McpClients />
      <form className="card form" onSubmit={changePassword} aria-labelledby="password-title" noValidate>
        <h2 id="password-title">Change password</h2>
        <label>
          Current password
          <input
            name="current"
            type="password"
            autoComplete="current-password"
            required
            aria-invalid={passwordError?.field === "current"}
            aria-describedby={passwordError?.field === "current" ? "current-password-error" : undefined}
          />
        </label>
        {passwordError?.field === "current" && (
          <p id="current-password-error" role="alert" className="error field-error">
            {passwordError.text}
          </p>
        )}
        <label>
          New password
          <input
            name="next"
            type="password"
            autoComplete="new-password"
            required
            aria-invalid={passwordError?.field === "next"}
            aria-describedby={`new-password-hint${passwordError?.field === "next" ? " new-password-error" : ""}`}
          />
        </label>
        <p id="new-password-hint" className="hint">
          {passwordRule}
        </p>
        {passwordError?.field === "next" && (
          <p id="new-password-error" role="alert" className="error field-error">
            {passwordError.text}
          </p>
        )}
        <button type="submit">Change password</button>
      </form>
    </section>
  )
}
