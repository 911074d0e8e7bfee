import { type FormEvent, useState } from "react"
import { client, errorText } from "./api.js"

/** `setup`: the server's `auth.setup` (a password exists). First run (no password yet): choose one. Afterwards: sign in. Both end signed in. */
export function AuthScreen({ setup, onSignedIn }: { readonly setup: boolean; readonly onSignedIn: () => void }) {
  const [password, setPassword] = useState("")
  const [confirm, setConfirm] = useState("")
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!setup && password !== confirm) return setError("The passwords differ")
    setBusy(true)
    setError(null)
    try {
      if (setup) await client.auth.login(password)
      else await client.auth.setup(password)
      onSignedIn()
    } catch (cause) {
      setError(errorText(cause))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main className="auth">
      <form className="card auth-card" onSubmit={submit}>
        <h1>Aide</h1>
        <p>{setup ? "Sign in to your assistant." : "Welcome. Choose the password that protects your assistant."}</p>
        <label>
          Password
          <input
            type="password"
            autoComplete={setup ? "current-password" : "new-password"}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            required
            autoFocus
          />
        </label>
        {!setup && (
          <label>
            Confirm password
            <input
              type="password"
              autoComplete="new-password"
              value={confirm}
              onChange={(event) => setConfirm(event.target.value)}
              required
            />
          </label>
        )}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {setup ? "Sign in" : "Set password"}
        </button>
      </form>
    </main>
  )
}
