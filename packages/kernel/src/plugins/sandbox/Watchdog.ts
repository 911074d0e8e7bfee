import { promises as fs } from "node:fs"

/**
 * The CPU watchdog of a plugin process (docs/plugin-sandbox.md "Containment"). It lives in the
 * host, not in the child: a busy loop blocks the child's own event loop, so a watchdog there
 * would never run. Every `intervalMs` it reads the process's CPU time from /proc; an interval in
 * which no call with a deadline was in flight and the process used more than `share` of a core
 * is a strike, and `strikes` in a row kill it (the supervisor restarts it with its backoff).
 * During a call the call's own timeout bounds it.
 *
 * Why not RLIMIT_CPU: it counts CPU over the process's whole life, so it would kill a healthy,
 * long-lived plugin that worked hard in many calls, and it cannot tell "in a call" from "idle".
 * /proc exists on Linux only: elsewhere the watchdog stays off (the log says so once).
 */

export interface WatchdogOptions {
  readonly intervalMs: number
  /** Fraction of one core, above which an idle interval is a strike. */
  readonly share: number
  readonly strikes: number
}

export const defaultWatchdog: WatchdogOptions = { intervalMs: 2_000, share: 0.2, strikes: 3 }

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every Linux build in use). */
const ticksPerSecond = 100

const statOf = async (pid: number): Promise<{ readonly ppid: number; readonly cpuMs: number } | undefined> => {
  const text = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined)
  if (text === undefined) return undefined
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  const ppid = Number(fields[1])
  const ticks = Number(fields[11]) + Number(fields[12])
  return Number.isFinite(ticks) ? { ppid, cpuMs: (ticks * 1000) / ticksPerSecond } : undefined
}

/** `pid` and its descendants (the containment wrappers fork the node process under them). */
export const processTree = async (pid: number): Promise<Array<number>> => {
  const names = await fs.readdir("/proc").catch(() => [] as Array<string>)
  const parents = new Map<number, Array<number>>()
  await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const stat = await statOf(Number(name))
        if (stat !== undefined) parents.set(stat.ppid, [...(parents.get(stat.ppid) ?? []), Number(name)])
      }),
  )
  const tree: Array<number> = []
  const visit = (at: number) => {
    tree.push(at)
    for (const child of parents.get(at) ?? []) visit(child)
  }
  visit(pid)
  return tree
}

/** CPU time, in ms, of a process tree found once (its shape does not change after start). */
const cpuOf = async (pids: ReadonlyArray<number>) => {
  let total = 0
  for (const pid of pids) total += (await statOf(pid))?.cpuMs ?? 0
  return total
}

export interface Watched {
  /** The wrapper's pid, or undefined while no process runs. */
  readonly pid: () => number | undefined
  /** Whether a call with a deadline was in flight at any time since the last tick. */
  readonly busySinceLastTick: () => boolean
  readonly kill: (pid: number, reason: string) => void
}

export const supported = process.platform === "linux"

/** Starts the watchdog; the returned function stops it. */
export const watch = (watched: Watched, options: WatchdogOptions): (() => void) => {
  if (!supported) return () => undefined
  let tree: { readonly root: number; readonly pids: ReadonlyArray<number> } | undefined
  let last: { readonly cpuMs: number; readonly at: number } | undefined
  let strikes = 0
  let ticking = false
  const tick = async () => {
    const root = watched.pid()
    if (root === undefined) return
    if (tree?.root !== root) {
      tree = { root, pids: await processTree(root) }
      last = undefined
      strikes = 0
    }
    const at = performance.now()
    const cpuMs = await cpuOf(tree.pids)
    // Measured against the wall time that really passed: the host's own timer may run late.
    const share = last === undefined ? 0 : (cpuMs - last.cpuMs) / Math.max(1, at - last.at)
    last = { cpuMs, at }
    const busy = watched.busySinceLastTick()
    if (busy || share <= options.share) {
      strikes = 0
      return
    }
    strikes += 1
    if (strikes < options.strikes) return
    strikes = 0
    const seconds = (options.strikes * options.intervalMs) / 1000
    watched.kill(root, `it used ${Math.round(100 * share)}% of a CPU with no call in flight for ${seconds} s`)
  }
  const timer = setInterval(() => {
    if (ticking) return
    ticking = true
    tick().finally(() => {
      ticking = false
    })
  }, options.intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
