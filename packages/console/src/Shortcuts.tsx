import { useEffect, useRef } from "react"

/**
 * Keyboard shortcuts: one listener on the window turns keys into `aide:shortcut` events, which
 * the part of the page that owns each action handles (the chat: stop, approve, deny; the list:
 * previous and next thread; the shell: new chat, help). None is a plain letter while a field is
 * being typed in, and none takes a key the browser itself needs (Ctrl+N, Ctrl+T…).
 */
export type ShortcutAction =
  | "new-chat"
  | "previous-thread"
  | "next-thread"
  | "stop"
  | "approve"
  | "deny"
  | "help"
  | "focus-message"

export const shortcuts: ReadonlyArray<{ readonly keys: string; readonly action: string }> = [
  { keys: "Enter", action: "Send the message (Shift+Enter: a new line)" },
  { keys: "Esc", action: "Stop the answer being written" },
  { keys: "Ctrl+Shift+O", action: "New chat" },
  { keys: "Alt+↑ / Alt+↓", action: "Previous / next thread in the list" },
  { keys: "Alt+Y / Alt+N", action: "Approve / deny the tool call waiting" },
  { keys: "Shift+Esc", action: "Focus the message box" },
  { keys: "?", action: "These shortcuts (outside a text field; Ctrl+/ anywhere)" },
]

export const onShortcut = (action: ShortcutAction, handler: () => void) => {
  const listener = (event: Event) => {
    if ((event as CustomEvent<ShortcutAction>).detail === action) handler()
  }
  globalThis.addEventListener("aide:shortcut", listener)
  return () => globalThis.removeEventListener("aide:shortcut", listener)
}

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable ||
    target.tagName === "TEXTAREA" ||
    target.tagName === "SELECT" ||
    (target.tagName === "INPUT" &&
      !["checkbox", "radio", "button", "submit"].includes((target as HTMLInputElement).type)))

/** The key of `event` as a shortcut, if it is one. */
export const shortcutOf = (event: KeyboardEvent): ShortcutAction | undefined => {
  const key = event.key
  if (event.ctrlKey || event.metaKey) {
    if (event.shiftKey && key.toLowerCase() === "o") return "new-chat"
    if (key === "/") return "help"
    return undefined
  }
  if (event.altKey) {
    if (key === "ArrowUp") return "previous-thread"
    if (key === "ArrowDown") return "next-thread"
    // Alt+Y on a Mac types "¥": the physical key is what counts.
    if (event.code === "KeyY") return "approve"
    if (event.code === "KeyN") return "deny"
    return undefined
  }
  if (key === "Escape") return event.shiftKey ? "focus-message" : "stop"
  if (key === "?" && !typing(event.target)) return "help"
  return undefined
}

/** Listens for the shortcuts while mounted (the signed-in shell). */
export function useShortcuts() {
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return
      const action = shortcutOf(event)
      if (action === undefined) return
      // Esc closes an open dialog first (the browser does that): it does not also stop the answer.
      if (action === "stop" && document.querySelector("dialog[open]") !== null) return
      if (action !== "stop") event.preventDefault()
      globalThis.dispatchEvent(new CustomEvent("aide:shortcut", { detail: action }))
    }
    globalThis.addEventListener("keydown", listener)
    return () => globalThis.removeEventListener("keydown", listener)
  }, [])
}

/** The `?` overlay: a modal dialog listing the shortcuts (Esc or Close shuts it). */
export function ShortcutHelp() {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(
    () =>
      onShortcut("help", () => {
        const element = dialog.current
        if (element === null) return
        if (element.open) element.close()
        else element.showModal()
      }),
    [],
  )
  return (
    <dialog ref={dialog} className="shortcuts" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table>
        <tbody>
          {shortcuts.map((shortcut) => (
            <tr key={shortcut.keys}>
              <th scope="row">
                <kbd>{shortcut.keys}</kbd>
              </th>
              <td>{shortcut.action}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="dialog">
        <button type="submit" className="primary">
          Close
        </button>
      </form>
    </dialog>
  )
}
