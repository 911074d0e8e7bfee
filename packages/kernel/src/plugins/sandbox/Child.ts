import { type ChildProcess, fork } from "node:child_process"

/**
 * One plugin process and its end of the wire (docs/plugin-sandbox.md), promise-based: the
 * supervisor (PluginProcess) decides about timeouts' consequences and restarts.
 */

export interface ChildFailure {
  readonly reason: "timeout" | "crashed" | "output" | "failed" | "cancelled" | "protocol"
  readonly message: string
}

export interface ChildOptions {
  readonly runner: string
  /** The containment wrapper chain's first program (Containment.ts); node when absent. */
  readonly execPath?: string
  readonly args: ReadonlyArray<string>
  readonly execArgv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
  /** Largest message accepted from the child; a bigger one kills it. */
  readonly maxMessageBytes: number
  readonly memoryMb: number
  /** child→host requests (fetch, channel.receive…). */
  readonly handle: (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>
  readonly log: (level: string, message: string, data?: unknown) => void
  readonly exited: (failure: ChildFailure) => void
}

export interface Child {
  readonly pid: number | undefined
  readonly request: (
    method: string,
    params: unknown,
    timeoutMs: number | null,
    signal?: AbortSignal,
  ) => Promise<unknown>
  readonly kill: () => void
  /** Why the process is being killed, as soon as it is (its exit comes later). */
  readonly dying: () => ChildFailure | undefined
}

interface Pending {
  readonly resolve: (value: unknown) => void
  readonly reject: (failure: ChildFailure) => void
}

const tailBytes = 4096

export const spawn = (options: ChildOptions): Child => {
  const child: ChildProcess = fork(options.runner, [...options.args], {
    execArgv: [...options.execArgv],
    env: { ...options.env },
    cwd: options.cwd,
    ...(options.execPath === undefined ? {} : { execPath: options.execPath }),
    // A process group of its own: Ctrl-C in Aide's terminal reaches Aide only, which stops it.
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    serialization: "json",
  })
  const pending = new Map<string, Pending>()
  const served = new Map<string, AbortController>()
  let nextId = 1
  let killedFor: ChildFailure | undefined
  let stderrTail = ""
  // Drained so that a chatty plugin never blocks on a full pipe; the tail explains a crash.
  child.stdout?.on("data", (chunk: Buffer) => options.log("info", chunk.toString("utf8").slice(0, tailBytes).trimEnd()))
  child.stderr?.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-tailBytes)
  })

  const kill = (failure: ChildFailure) => {
    killedFor ??= failure
    child.kill("SIGKILL")
  }

  const send = (message: object) => {
    if (child.connected) child.send(message, (error) => error && kill({ reason: "crashed", message: error.message }))
  }

  child.on("message", (message: unknown) => {
    const size = JSON.stringify(message)?.length ?? 0
    if (size > options.maxMessageBytes) {
      return kill({ reason: "protocol", message: `sent a message of ${size} bytes (limit ${options.maxMessageBytes})` })
    }
    if (message === null || typeof message !== "object") {
      return kill({ reason: "protocol", message: "sent a message the wire does not know" })
    }
    const m = message as { kind?: unknown; id?: unknown; [key: string]: unknown }
    if (m.kind === "log") return options.log(String(m.level), String(m.message), m.data)
    if (typeof m.id !== "string") return kill({ reason: "protocol", message: "sent a message without an id" })
    if (m.kind === "response") {
      const waiting = pending.get(m.id)
      pending.delete(m.id)
      if (m.ok === true) return waiting?.resolve(m.value)
      const error = m.error as { message?: unknown; code?: unknown } | undefined
      const reason = error?.code === "output" ? "output" : "failed"
      return waiting?.reject({ reason, message: String(error?.message ?? "failed") })
    }
    if (m.kind === "cancel") return served.get(m.id)?.abort(new Error("cancelled by the plugin"))
    if (m.kind !== "request" || typeof m.method !== "string") {
      return kill({ reason: "protocol", message: "sent a message the wire does not know" })
    }
    const id = m.id
    const controller = new AbortController()
    served.set(id, controller)
    options
      .handle(m.method, m.params, controller.signal)
      .then(
        (value) => send({ kind: "response", id, ok: true, value: value ?? null }),
        (error: unknown) =>
          send({
            kind: "response",
            id,
            ok: false,
            error: { message: error instanceof Error ? error.message : String(error) },
          }),
      )
      .finally(() => served.delete(id))
  })

  // stderr may still hold the reason (V8's out-of-memory report) when `exit` fires: read it to
  // its end, but never wait on a pipe a grandchild could keep open.
  const stderrDone = new Promise<void>((resolve) => {
    child.stderr?.once("close", resolve)
    child.once("exit", () => setTimeout(resolve, 200).unref())
  })
  child.on("exit", (code, signal) => void stderrDone.then(() => exited(code, signal)))
  const exited = (code: number | null, signal: NodeJS.Signals | null) => {
    const oom = /heap out of memory|Allocation failed/i.test(stderrTail)
    const failure: ChildFailure =
      killedFor ??
      (oom
        ? { reason: "crashed", message: `the plugin process ran out of memory (limit ${options.memoryMb} MiB)` }
        : { reason: "crashed", message: `the plugin process exited (${signal ?? `code ${code}`})` })
    for (const waiting of pending.values()) waiting.reject(failure)
    pending.clear()
    for (const controller of served.values()) controller.abort(new Error("the plugin process exited"))
    options.exited(failure)
  }
  child.on("error", (error) => kill({ reason: "crashed", message: error.message }))

  const request = (method: string, params: unknown, timeoutMs: number | null, signal?: AbortSignal) =>
    new Promise<unknown>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
        return reject({ reason: "crashed", message: "the plugin process is not running" } satisfies ChildFailure)
      }
      const id = `h${nextId++}`
      let timer: ReturnType<typeof setTimeout> | undefined
      const onAbort = () => {
        settle()
        send({ kind: "cancel", id })
        reject({ reason: "cancelled", message: `${method} was cancelled` } satisfies ChildFailure)
      }
      const settle = () => {
        clearTimeout(timer)
        signal?.removeEventListener("abort", onAbort)
        pending.delete(id)
      }
      if (signal?.aborted) return onAbort()
      signal?.addEventListener("abort", onAbort, { once: true })
      pending.set(id, {
        resolve: (value) => {
          settle()
          resolve(value)
        },
        reject: (failure) => {
          settle()
          reject(failure)
        },
      })
      if (timeoutMs !== null) {
        // A synchronous loop never yields to a cancel: only killing the process stops it.
        timer = setTimeout(() => {
          const failure: ChildFailure = { reason: "timeout", message: `${method} timed out after ${timeoutMs} ms` }
          settle()
          reject(failure)
          kill(failure)
        }, timeoutMs)
      }
      send({ kind: "request", id, method, params })
    })

  return {
    pid: child.pid,
    request,
    kill: () => kill({ reason: "crashed", message: "the plugin process was stopped" }),
    dying: () => killedFor,
  }
}
