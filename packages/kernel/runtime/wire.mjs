// The child's end of the wire (docs/plugin-sandbox.md): JSON messages over the Node IPC channel
// that `child_process.fork` opened. Captured before any plugin code runs; plugin code never
// sees `process`, so it cannot send messages of its own.

const send = process.send.bind(process)
const pending = new Map()
const inFlight = new Map()
let nextId = 1

/** Errors cross the wire as their message only: stacks would leak the host's paths. */
export const errorMessage = (error) =>
  error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error"

const reply = (id, outcome) => {
  if (!inFlight.delete(id)) return // cancelled: the host no longer waits
  send({ kind: "response", id, ...outcome })
}

/** A request child→host; `signal` cancels it on both sides. */
export const request = (method, params, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const id = `c${nextId++}`
    const onAbort = () => {
      pending.delete(id)
      send({ kind: "cancel", id })
      reject(signal.reason)
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    pending.set(id, (message) => {
      signal?.removeEventListener("abort", onAbort)
      if (message.ok) resolve(message.value)
      else reject(new Error(String(message.error?.message ?? "request failed")))
    })
    send({ kind: "request", id, method, params })
  })

const maxLog = 4096
/** `{ kind: "log" }`, bounded: a chatty plugin gets truncated lines, never a huge message. */
export const log = (level, message, data) => {
  const text = String(message).slice(0, maxLog)
  let extra
  if (data !== undefined) {
    try {
      const json = JSON.stringify(data)
      if (json !== undefined && json.length <= 4 * maxLog) extra = JSON.parse(json)
    } catch {
      extra = undefined
    }
  }
  send({ kind: "log", level, message: text, ...(extra === undefined ? {} : { data: extra }) })
}

/** Serves host→child requests with `handlers[method](params, signal)`. */
export const serve = (handlers) => {
  process.on("message", (message) => {
    if (message === null || typeof message !== "object") return
    if (message.kind === "response") {
      const settle = pending.get(message.id)
      pending.delete(message.id)
      return void settle?.(message)
    }
    if (message.kind === "cancel") {
      const controller = inFlight.get(message.id)
      inFlight.delete(message.id)
      return void controller?.abort(new Error("cancelled by the host"))
    }
    if (message.kind !== "request") return
    const controller = new AbortController()
    inFlight.set(message.id, controller)
    const handler = Object.hasOwn(handlers, message.method) ? handlers[message.method] : undefined
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`unknown method ${message.method}`)
        return handler(message.params ?? {}, controller.signal)
      })
      .then(
        (value) => reply(message.id, { ok: true, value: value ?? null }),
        (error) =>
          reply(message.id, {
            ok: false,
            error: {
              message: errorMessage(error).slice(0, maxLog),
              ...(error?.code === "output" ? { code: "output" } : {}),
            },
          }),
      )
  })
  // The host went away: nothing left to serve.
  process.on("disconnect", () => process.exit(0))
}
