import { promises as fs } from "node:fs"
import { type Child, type ChildFailure, spawn } from "./Child.js"
import { launch, missingWalls } from "./Containment.js"
import type { PluginDescription } from "./Description.js"
import { permissionPaths } from "./FsGrants.js"
import type { PluginProcessOptions } from "./PluginProcess.js"
import { codeCacheFlags, heapFlags, memoryFlags, runnerPaths } from "./RunnerPaths.js"
import type { Peer } from "./SocketBroker.js"
import { type Backoff, delays } from "./Supervisor.js"

/** The stateful half of PluginProcess: the current child, its restarts and the calls in between. */

export interface Supervised {
  readonly description: () => PluginDescription
  readonly request: (method: string, params: unknown, timeoutMs: number | null, signal: AbortSignal) => Promise<unknown>
  readonly pid: () => number | undefined
  readonly close: () => void
}

interface Setup {
  readonly options: PluginProcessOptions
  readonly limits: { memoryMb: number; callTimeoutMs: number; outputBytes: number; startTimeoutMs: number }
  readonly backoff: Backoff
  /** child→host requests; `peer` is the process that asked (socket events go back to it). */
  readonly handle: (method: string, params: unknown, signal: AbortSignal, peer: Peer) => Promise<unknown>
  /** A process exited: what it held in the host (its sockets) goes. */
  readonly released: (peer: Peer) => void
  readonly log: (level: string, message: string, data?: unknown) => void
  readonly decode: (value: unknown) => Promise<PluginDescription>
}

/** The node flags of a child: the permission model for a compartment, the memory cap for both. */
export const execArgv = async ({ options, limits }: Pick<Setup, "options" | "limits">): Promise<Array<string>> => {
  const memory = memoryFlags(limits.memoryMb)
  if (options.trust === "host") return [...heapFlags, ...memory]
  const { readable } = await runnerPaths()
  const granted = [
    ...(await permissionPaths(options.directory, options.permissions.fs ?? [], readable)),
    // The precompiled modules folder (written by the host before this start) is read whole.
    ...(options.modules === undefined ? [] : [await fs.realpath(options.modules)]),
  ]
  return [
    "--experimental-permission",
    "--disable-warning=ExperimentalWarning",
    ...granted.map((p) => `--allow-fs-read=${p}`),
    ...codeCacheFlags,
    ...memory,
  ]
}

export const supervise = async (setup: Setup): Promise<Supervised> => {
  const { options, limits } = setup
  const { runner } = await runnerPaths()
  const argv = await execArgv(setup)
  // An answer of `outputBytes` (as JSON, with its envelope) fits; anything larger is refused by
  // its frame header, before the host reads it.
  const maxMessageBytes = 2 * limits.outputBytes + 64 * 1024
  const wrapper = await launch({ memoryMb: limits.memoryMb, addressSpaceMb: options.limits?.addressSpaceMb })
  const missing = missingWalls(wrapper.walls)
  if (missing !== "") setup.log("warn", `plugin process runs without ${missing}: not available on this machine`)
  const directory = await fs.realpath(options.directory)
  const wait = delays(setup.backoff)
  let current: Child | undefined
  let description: PluginDescription = { tools: [], agents: [], channels: [], alerts: [] }
  let phase: "running" | "starting" | "backoff" | "closed" = "starting"
  let starting: Promise<void> = Promise.resolve()
  let upSince: number | undefined
  let lastFailure: ChildFailure | undefined
  let retryAt = 0
  let timer: ReturnType<typeof setTimeout> | undefined

  const scheduleRestart = (failure: ChildFailure) => {
    if (phase === "closed") return
    const delay = wait.next(upSince, Date.now())
    setup.log("warn", `plugin process stopped (${failure.message}); restarting in ${delay} ms`)
    phase = "backoff"
    lastFailure = failure
    upSince = undefined
    retryAt = Date.now() + delay
    timer = setTimeout(() => void restart().catch(() => undefined), delay)
    timer.unref()
  }

  const startOnce = async (): Promise<void> => {
    // Events of the host's sockets go to the process that opened them, never to a successor.
    const peer: Peer = { emit: (params) => child.request("socket.event", params, null) }
    const child: Child = spawn({
      runner: runner[options.trust],
      execPath: wrapper.execPath,
      // The precompiled modules folder is known before `init`: the code cache of its first script is read from it.
      args: [options.trust, ...(options.modules === undefined ? [] : [options.modules])],
      execArgv: [...wrapper.prefix, ...argv],
      env: options.env,
      cwd: directory,
      maxMessageBytes,
      memoryMb: limits.memoryMb,
      handle: (method, params, signal) => setup.handle(method, params, signal, peer),
      log: setup.log,
      exited: (failure) => {
        setup.released(peer)
        if (child !== current) return
        current = undefined
        scheduleRestart(failure)
      },
    })
    try {
      const answer = await child.request(
        "init",
        {
          pluginId: options.pluginId,
          trust: options.trust,
          directory,
          entries: options.entries,
          config: options.config,
          permissions: options.permissions,
          limits: { outputBytes: limits.outputBytes, messageBytes: maxMessageBytes },
        },
        limits.startTimeoutMs,
      )
      description = await setup.decode(answer)
    } catch (failure) {
      child.kill()
      throw new Error(`init failed: ${(failure as Partial<ChildFailure>).message ?? String(failure)}`)
    }
    if (phase === "closed") return child.kill()
    current = child
    phase = "running"
    upSince = Date.now()
  }

  const restart = () => {
    phase = "starting"
    starting = startOnce().catch((error: Error) => scheduleRestart({ reason: "crashed", message: error.message }))
    return starting
  }

  await startOnce()

  const request: Supervised["request"] = async (method, params, timeoutMs, signal) => {
    if (phase === "starting") await starting
    if (phase === "closed") throw { reason: "crashed", message: "the plugin process is stopped" }
    const dying = current?.dying()
    if (dying !== undefined) throw { restarting: true, message: `restarting after ${dying.message}` }
    if (phase === "backoff" || current === undefined) {
      const left = Math.max(0, retryAt - Date.now())
      throw {
        restarting: true,
        message: `restarting after ${lastFailure?.message ?? "a failure"} (next attempt in ${left} ms)`,
      }
    }
    return current.request(method, params, timeoutMs, signal)
  }

  return {
    description: () => description,
    request,
    pid: () => current?.pid,
    close: () => {
      phase = "closed"
      clearTimeout(timer)
      const child = current
      current = undefined
      child?.kill()
    },
  }
}
