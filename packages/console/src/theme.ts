import { useCallback, useEffect, useState } from "react"

type Theme = "light" | "dark"

const initial = (): Theme => {
  const saved = localStorage.getItem("aide.console.theme")
  if (saved === "light" || saved === "dark") return saved
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"
}

/** Set before the first render: the screens outside the shell (sign-in, offline, MCP consent) follow the system too. */
export const applyTheme = () => {
  document.documentElement.dataset.theme = initial()
}

/** Light or dark, following the system until the owner picks one. */
export const useTheme = (): [Theme, () => void] => {
  const [theme, setTheme] = useState<Theme>(initial)
  useEffect(() => {
    document.documentElement.dataset.theme = theme
  }, [theme])
  const toggle = useCallback(() => {
    setTheme((current) => {
      const next = current === "dark" ? "light" : "dark"
      localStorage.setItem("aide.console.theme", next)
      return next
    })
  }, [])
  return [theme, toggle]
}
