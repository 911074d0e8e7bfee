/**
 * A plugin's log lines, rate-limited in the host (a host-trust plugin can write to the wire or
 * stdout directly, so the child's own discipline is not enough): at most `lines` lines and
 * `bytes` bytes per one-second window. What is over is dropped and counted; once the flood has
 * stopped for a second, one "N plugin log lines dropped" notice says how many.
 */

export interface LogRate {
  readonly lines: number
  readonly bytes: number
}

export const defaultLogRate: LogRate = { lines: 50, bytes: 64 * 1024 }

export type Write = (level: string, message: string, data?: unknown) => void

const sizeOf = (message: string, data: unknown) => {
  if (data === undefined) return message.length
  try {
    return message.length + (JSON.stringify(data)?.length ?? 0)
  } catch {
    // Too deep or cyclic: it will not be printed whole anyway.
    return message.length + 4096
  }
}

export interface LimitedLog {
  readonly write: Write
  /** Says what was dropped, if anything, and stops the notice timer. */
  readonly close: () => void
}

export const limitLogs = (rate: LogRate, write: Write): LimitedLog => {
  let windowStart = Number.NEGATIVE_INFINITY
  let lines = 0
  let bytes = 0
  let dropped = 0
  let lastDrop = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const notice = () => {
    timer = undefined
    if (dropped === 0) return
    write("warn", `${dropped} plugin log lines dropped (over ${rate.lines} lines or ${rate.bytes} bytes a second)`)
    dropped = 0
  }
  const arm = (ms: number) => {
    timer = setTimeout(() => (Date.now() - lastDrop >= 1_000 ? notice() : arm(1_000 - (Date.now() - lastDrop))), ms)
    timer.unref()
  }
  return {
    write: (level, message, data) => {
      const at = Date.now()
      if (at - windowStart >= 1_000) {
        windowStart = at
        lines = 0
        bytes = 0
      }
      const size = sizeOf(message, data)
      if (lines + 1 > rate.lines || bytes + size > rate.bytes) {
        dropped += 1
        lastDrop = at
        if (timer === undefined) arm(1_000)
        return
      }
      lines += 1
      bytes += size
      write(level, message, data)
    },
    close: () => {
      clearTimeout(timer)
      notice()
    },
  }
}
