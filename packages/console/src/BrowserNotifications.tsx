import { useEffect, useState } from "react"
import { errorText } from "./api.js"
import { currentSubscription, disablePush, enablePush, pushSupported } from "./pushSubscription.js"

/** Settings → Browser notifications: new inbox messages and approvals waiting, pushed to this browser. */
export function BrowserNotifications() {
  const supported = pushSupported()
  const [enabled, setEnabled] = useState<boolean | null>(null)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  useEffect(() => {
    if (!supported) return
    currentSubscription()
      .then((subscription) => setEnabled(subscription !== null))
      .catch(() => setEnabled(false))
  }, [supported])
  const toggle = async (on: boolean) => {
    setBusy(true)
    setProblem(null)
    try {
      await (on ? enablePush() : disablePush())
      setEnabled(on)
    } catch (cause) {
      setProblem(errorText(cause))
      setEnabled((await currentSubscription().catch(() => null)) !== null)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section className="card" aria-labelledby="notifications-title">
      <h2 id="notifications-title">Browser notifications</h2>
      {supported ? (
        <label>
          <input
            type="checkbox"
            checked={enabled === true}
            disabled={busy || enabled === null}
            onChange={(event) => void toggle(event.currentTarget.checked)}
          />{" "}
          Notify this browser of new inbox messages and approvals waiting
        </label>
      ) : (
        <p>This browser cannot receive notifications (install the app, or use a browser with Web Push).</p>
      )}
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
    </section>
  )
}
