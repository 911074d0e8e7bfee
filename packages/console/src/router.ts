import { useSyncExternalStore } from "react"

/** Routes live under /app/ (the server answers every deep link there with index.html). */
const base = "/app"

const listeners = new Set<() => void>()
const subscribe = (listener: () => void) => {
  listeners.add(listener)
  globalThis.addEventListener("popstate", listener)
  return () => {
    listeners.delete(listener)
    globalThis.removeEventListener("popstate", listener)
  }
}

const current = () => {
  const path = globalThis.location.pathname
  return path.startsWith(base) ? path.slice(base.length) || "/" : "/"
}

/** The path inside the app: `/`, `/chat/<thread>`, `/inbox`… */
export const usePath = () => useSyncExternalStore(subscribe, current)

export const navigate = (path: string, options: { readonly replace?: boolean } = {}) => {
  const url = `${base}${path}`
  if (options.replace) history.replaceState(null, "", url)
  else history.pushState(null, "", url)
  for (const listener of listeners) listener()
}

export const href = (path: string) => `${base}${path}`
