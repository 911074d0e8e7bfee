import { useCallback, useEffect, useState } from "react"
import { errorText } from "./api.js"

/** Loads `load()` on mount and on `reload()`; errors become text shown in place. */
export const useLoad = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown> = []) => {
  const [data, setData] = useState<A | undefined>(undefined)
  const [error, setError] = useState<string | null>(null)
  const reload = useCallback(() => {
    load()
      .then((value) => {
        setData(value)
        setError(null)
      })
      .catch((cause) => setError(errorText(cause)))
    // biome-ignore lint/correctness/useExhaustiveDependencies: `deps` are what `load` reads
  }, deps)
  useEffect(() => reload(), [reload])
  /** Runs an action, then reloads; its error is shown like a load error. */
  const act = (action: () => Promise<unknown>) =>
    void action()
      .then(reload)
      .catch((cause) => setError(errorText(cause)))
  return { data, error, reload, act }
}
