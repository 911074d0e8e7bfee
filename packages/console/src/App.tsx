import { lazy, Suspense, useCallback, useEffect, useState } from "react"
import { AuthScreen } from "./Auth.js"
import { client, onSessionLost } from "./api.js"
import { Chat, newChatId } from "./Chat.js"
import { Icon } from "./Icon.js"
import { href, navigate, usePath } from "./router.js"
import { onShortcut, ShortcutHelp, useShortcuts } from "./Shortcuts.js"
import { Sidebar } from "./Sidebar.js"
import { useTheme } from "./theme.js"

// Screens other than chat load on first visit: the first load stays small.
const Inbox = lazy(() => import("./Inbox.js").then((m) => ({ default: m.Inbox })))
const Schedule = lazy(() => import("./Schedule.js").then((m) => ({ default: m.Schedule })))
const Memory = lazy(() => import("./Memory.js").then((m) => ({ default: m.Memory })))
const Integrations = lazy(() => import("./Integrations.js").then((m) => ({ default: m.Integrations })))
const Settings = lazy(() => import("./Settings.js").then((m) => ({ default: m.Settings })))
const McpConsent = lazy(() => import("./McpConsent.js").then((m) => ({ default: m.McpConsent })))

type Gate =
  | { readonly state: "loading" }
  | { readonly state: "offline" }
  | { readonly state: "auth"; readonly setup: boolean }
  | { readonly state: "in" }

export function App() {
  const [gate, setGate] = useState<Gate>({ state: "loading" })
  const check = useCallback(async () => {
    const status = await client.auth.status().catch(() => null)
    const tokens = await client.auth.tokens()
    // Signed in but the server is out of reach (the installed app opened offline): say so and
    // look again when the network is back, rather than offering a setup screen.
    if (status === null && tokens !== null) setGate({ state: "offline" })
    else if (status?.auth.setup && tokens !== null) setGate({ state: "in" })
    else setGate({ state: "auth", setup: status?.auth.setup ?? true })
  }, [])
  useEffect(() => {
    void check()
    return onSessionLost(() => setGate({ state: "auth", setup: true }))
  }, [check])
  if (gate.state === "loading") return <p className="loading">Loading…</p>
  if (gate.state === "offline") return <Offline retry={() => void check()} />
  if (gate.state === "auth") return <AuthScreen setup={gate.setup} onSignedIn={() => setGate({ state: "in" })} />
  // An MCP client's OAuth request (from `/oauth/authorize`): the consent screen alone, once signed in.
  if (globalThis.location.pathname === "/app/mcp/consent")
    return (
      <Suspense fallback={<p className="loading">Loading…</p>}>
        <McpConsent />
      </Suspense>
    )
  return <Shell onSignedOut={() => setGate({ state: "auth", setup: true })} />
}

function Offline({ retry }: { readonly retry: () => void }) {
  useEffect(() => {
    globalThis.addEventListener("online", retry)
    return () => globalThis.removeEventListener("online", retry)
  }, [retry])
  return (
    <main className="offline" aria-labelledby="offline-title">
      <h1 id="offline-title">Aide is out of reach</h1>
      <p>The server cannot be reached from here. The app tries again when the network is back.</p>
      <button type="button" className="primary" onClick={retry}>
        Try again
      </button>
    </main>
  )
}

const sections = [
  { path: "/", label: "Chat" },
  { path: "/inbox", label: "Inbox" },
  { path: "/schedule", label: "Schedule" },
  { path: "/memory", label: "Memory" },
  { path: "/tools", label: "Tools" },
  { path: "/settings", label: "Settings" },
] as const

function useUnread() {
  const [unread, setUnread] = useState(0)
  useEffect(() => {
    let alive = true
    const poll = () =>
      client.inbox
        .list()
        .then((messages) => alive && setUnread(messages.filter((message) => !message.read).length))
        .catch(() => {})
    void poll()
    const timer = setInterval(poll, 5_000)
    const refresh = () => void poll()
    globalThis.addEventListener("aide:inbox", refresh)
    return () => {
      alive = false
      clearInterval(timer)
      globalThis.removeEventListener("aide:inbox", refresh)
    }
  }, [])
  return unread
}

function Shell({ onSignedOut }: { readonly onSignedOut: () => void }) {
  const path = usePath()
  const [theme, toggleTheme] = useTheme()
  const [menuOpen, setMenuOpen] = useState(false)
  const unread = useUnread()
  const section = sections.find((s) => s.path !== "/" && path.startsWith(s.path))?.path ?? "/"
  const threadId = path.startsWith("/chat/") ? decodeURIComponent(path.slice("/chat/".length)) : undefined
  // biome-ignore lint/correctness/useExhaustiveDependencies: closing the menu on every navigation
  useEffect(() => setMenuOpen(false), [path])
  useShortcuts()
  useEffect(() => {
    const offNew = onShortcut("new-chat", () => navigate("/"))
    const offFocus = onShortcut("focus-message", () =>
      document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.focus(),
    )
    return () => {
      offNew()
      offFocus()
    }
  }, [])
  // `/` is a new chat: it gets its id (the thread's) at once, so sending never changes the URL.
  // `/integrations` was the Tools page's address: old bookmarks land on `/tools`.
  useEffect(() => {
    if (path === "/") navigate(`/chat/${newChatId()}`, { replace: true })
    else if (path === "/integrations") navigate("/tools", { replace: true })
  }, [path])
  return (
    <div className={`shell ${menuOpen ? "menu-open" : ""} ${section === "/" ? "" : "no-sidebar"}`}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="icon menu-button"
          aria-label="Menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((open) => !open)}
        >
          <Icon name={menuOpen ? "close" : "menu"} />
        </button>
        <strong className="brand">Aide</strong>
        {/* On a phone the sections live in the menu: the bar says where you are. */}
        <span className="current-section" aria-hidden="true">
          {sections.find((s) => s.path === section)?.label}
        </span>
        <nav aria-label="Sections" className="sections">
          {sections.map((s) => (
            <a
              key={s.path}
              href={href(s.path)}
              aria-current={section === s.path ? "page" : undefined}
              onClick={(event) => {
                event.preventDefault()
                navigate(s.path)
              }}
            >
              {s.label}
              {s.path === "/inbox" && unread > 0 && (
                <span className="badge">
                  {unread}
                  <span className="visually-hidden"> unread</span>
                </span>
              )}
            </a>
          ))}
        </nav>
        <button
          type="button"
          className="icon shortcut-help"
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
          onClick={() => globalThis.dispatchEvent(new CustomEvent("aide:shortcut", { detail: "help" }))}
        >
          ?
        </button>
        <button
          type="button"
          className="icon"
          aria-label={theme === "dark" ? "Switch to light theme" : "Switch to dark theme"}
          onClick={toggleTheme}
        >
          <Icon name={theme === "dark" ? "sun" : "moon"} />
        </button>
      </header>
      <ShortcutHelp />
      {section === "/" && <Sidebar activeThreadId={threadId} />}
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<p className="loading">Loading…</p>}>
          {section === "/" && threadId !== undefined && <Chat key={threadId} threadId={threadId} />}
          {section === "/inbox" && <Inbox />}
          {section === "/schedule" && <Schedule />}
          {section === "/memory" && <Memory />}
          {section === "/tools" && <Integrations />}
          {section === "/settings" && <Settings onSignedOut={onSignedOut} />}
        </Suspense>
      </main>
    </div>
  )
}
