import { type ChildProcess, spawn as spawnProcess } from "node:child_process"
import type { Duplex } from "node:stream"
import * as Frames from "./Frames.js"
import * as Inbound from "./Inbound.js"

/**
 * One plugin process and its end of the wire (docs/plugin-sandbox.md), promise-based: the
 * supervisor (PluginProcess) decides about timeouts' consequences and restarts. Messages travel
 * framed (Frames.ts) over fd 3, not Node's IPC channel: their size is known before they are read.
 * Everything the child sends is read by Inbound.ts; every listener here is guarded, so a message
 * of any shape ends as a failed call or a killed (and restarted) process, never a host exception.
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
/** Requests child→host served at once; past it the next is refused (the host's memory is not the plugin's). */
export const maxServed = 64
const maxParamsDepth = 32

/** Host-made text of a host-side failure (the handlers are the host's, but stay careful). */
const failureText = (error: unknown): string => {
  try {
    // A Schema error's message is computed when read, from the value it rejects.
    const message = error instanceof Error ? error.message : undefined
    return typeof message === "string" ? message.slice(0, Inbound.maxText) : "the request failed"
  } catch {
    return "the request failed"
  }
}

export const spawn = (options: ChildOptions): Child => {
  const child: ChildProcess = spawnProcess(
    options.execPath ?? process.execPath,
    [...options.execArgv, options.runner, ...options.args],
    {
      env: { ...options.env },
      cwd: options.cwd,
      // A process group of its own: Ctrl-C in Aide's terminal reaches Aide only, which stops it.
      detached: true,
      // fd 3 is the wire (a socket pair); there is no Node IPC channel.
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    },
  )
  const wire = child.stdio[3] as Duplex | null | undefined
  const pending = new Map<string, Pending>()
  const served = new Map<string, AbortController>()
  let nextId = 1
  let killedFor: ChildFailure | undefined
  let exitedYet = false
  let stderrTail = ""
  // Drained so that a chatty plugin never blocks on a full pipe; the tail explains a crash.
  child.stdout?.on("data", (chunk: Buffer) => {
    try {
      options.log("info", chunk.toString("utf8").slice(0, tailBytes).trimEnd())
    } catch {
      // A log that fails costs the line, never the host.
    }
  })
  child.stderr?.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-tailBytes)
  })

  const kill = (failure: ChildFailure) => {
    killedFor ??= failure
    child.kill("SIGKILL")
  }
  const open = () => !exitedYet && wire?.writable === true && killedFor === undefined

  // The messages of one turn of the event loop go out in one write: a burst of requests refused
  // at once (or a batch of held refusals) costs the host one system call, not one each.
  let corked = false
  const uncork = () => {
    corked = false
    wire?.uncork()
  }
  const send = (message: object) => {
    if (!open()) return
    try {
      if (!corked && wire !== null && wire !== undefined) {
        corked = true
        wire.cork()
        setImmediate(uncork)
      }
      wire?.write(Frames.encode(message))
    } catch (error) {
      kill({ reason: "protocol", message: `a message to the plugin could not be sent (${failureText(error)})` })
    }
  }

  const serve = (id: string, method: string, params: unknown) => {
    // Deep params are refused here, so that no handler's decoder ever has to quote one.
    const reason = served.has(id)
      ? "an id already in flight"
      : served.size >= maxServed
        ? `more than ${maxServed} requests in flight`
        : !Inbound.depthAtMost(params, maxParamsDepth)
          ? `its params nest deeper than ${maxParamsDepth} levels`
          : undefined
    if (reason !== undefined) {
      return send({ kind: "response", id, ok: false, error: { message: `${method} refused: ${reason}` } })
    }
    const controller = new AbortController()
    served.set(id, controller)
    Promise.resolve()
      .then(() => options.handle(method, params, controller.signal))
      .then(
        (value) => send({ kind: "response", id, ok: true, value: value ?? null }),
        (error: unknown) => send({ kind: "response", id, ok: false, error: { message: failureText(error) } }),
      )
      .catch(() => undefined)
      .finally(() => served.delete(id))
  }

  const receive = (frame: string) => {
    const message = Inbound.read(frame)
    switch (message.kind) {
      case "invalid":
        return kill({ reason: "protocol", message: message.reason })
      case "log":
        return options.log(message.level, message.message, message.data)
      case "resolved":
        return pending.get(message.id)?.resolve(message.value)
      case "rejected":
        return pending
          .get(message.id)
          ?.reject({ reason: message.output ? "output" : "failed", message: message.message })
      case "cancel":
        return served.get(message.id)?.abort(new Error("cancelled by the plugin"))
      case "request":
        return serve(message.id, message.method, message.params)
    }
  }

  const frames = Frames.reader(
    options.maxMessageBytes,
    (frame) => {
      // A listener that throws would take the host down: whatever goes wrong here is the plugin's.
      try {
        receive(frame)
      } catch {
        kill({ reason: "protocol", message: "sent a message the host could not handle" })
      }
    },
    (reason) => kill({ reason: "protocol", message: reason }),
  )
  wire?.on("data", (chunk: Buffer) => {
    try {
      frames.push(chunk)
    } catch {
      kill({ reason: "protocol", message: "sent bytes the host could not read" })
    }
  })
  // The wire ends when the process dies; a process that closes it while alive can never answer
  // again. Killed without a reason of our own, so that the exit (or V8's report) explains it.
  wire?.on("error", () => child.kill("SIGKILL"))
  wire?.on("close", () => child.kill("SIGKILL"))

  // stderr may still hold the reason (V8's out-of-memory report) when `exit` fires: read it to
  // its end, but never wait on a pipe a grandchild could keep open.
  const stderrDone = new Promise<void>((resolve) => {
    child.stderr?.once("close", resolve)
    child.once("exit", () => setTimeout(resolve, 200).unref())
  })
  child.on("exit", (code, signal) => {
    wire?.destroy()
    void stderrDone.then(() => exited(code, signal))
  })
  const exited = (code: number | null, signal: NodeJS.Signals | null) => {
    exitedYet = true
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
      if (child.exitCode !== null || child.signalCode !== null || !open()) {
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
