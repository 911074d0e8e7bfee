import { type FormEvent, useId, useState } from "react"
import { client, errorText } from "./api.js"

/** The server's rule (kernel AuthConfig `minPasswordLength`), said before it is broken. */
export const minPasswordLength = 8
export const passwordRule = `At least ${minPasswordLength} characters.`

/** `setup`: the server's `auth.setup` (a password exists). First run (no password yet): choose one. Afterwards: sign in. Both end signed in. */
export function AuthScreen({ setup, onSignedIn }: { readonly setup: boolean; readonly onSignedIn: () => void }) {
  const [password, setPassword] = useState("")
  const [confirm, setConfirm] = useState("")
  // Each problem is shown under the field it is about (and announced).
  const [error, setError] = useState<{ readonly field: "password" | "confirm"; readonly text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const ids = { hint: useId(), password: useId(), confirm: useId() }
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!setup && password.length < minPasswordLength)
      return setError({ field: "password", text: `Too short: ${passwordRule.toLowerCase()}` })
    if (!setup && password !== confirm) return setError({ field: "confirm", text: "The two passwords differ." })
    setBusy(true)
    setError(null)
    try {
      if (setup) await client.auth.login(password)
      else await client.auth.setup(password)
      onSignedIn()
    } catch (cause) {
      setError({ field: "password", text: errorText(cause) })
    } finally {
      setBusy(false)
    }
  }
  const describedBy = (field: "password" | "confirm", extra?: string) =>
    [extra, error?.field === field ? ids[field] : undefined].filter(Boolean).join(" ") || undefined
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={submit} noValidate>
        <h1>Aide</h1>
        <p>{setup ? "Sign in to your assistant." : "Welcome. Choose the password that protects your assistant."}</p>
        <label>
          Password
          <input
            type="password"
            autoComplete={setup ? "current-password" : "new-password"}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            aria-invalid={error?.field === "password"}
            aria-describedby={describedBy("password", setup ? undefined : ids.hint)}
            required
            autoFocus
          />
        </label>
        {!setup && (
          <p id={ids.hint} className="hint">
            {passwordRule}
          </p>
        )}
        {error?.field === "password" && (
          <p id={ids.password} role="alert" className="error field-error">
            {error.text}
          </p>
        )}
        {!setup && (
          <label>
            Confirm password
            <input
              type="password"
              autoComplete="new-password"
              value={confirm}
              onChange={(event) => setConfirm(event.target.value)}
              aria-invalid={error?.field === "confirm"}
              aria-describedby={describedBy("confirm")}
              required
            />
          </label>
        )}
        {error?.field === "confirm" && (
          <p id={ids.confirm} role="alert" className="error field-error">
            {error.text}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {setup ? "Sign in" : "Set password"}
        </button>
      </form>
    </main>
  )
}
