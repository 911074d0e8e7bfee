/** Whether process `pid` still exists (signal 0 only checks). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but is not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const waitForExit = async (pid: number, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

/**
 * Waits until `pid` is gone. The SDK's `close()` ends stdin, then sends SIGTERM, then SIGKILL,
 * but does not wait after the SIGKILL: without this a killed child could outlive its server by
 * a moment, or for good if the SIGKILL raced its exit handling.
 */
export const ensureExited = async (pid: number): Promise<void> => {
  if (await waitForExit(pid, 1_000)) return
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // gone in between
  }
  await waitForExit(pid, 2_000)
}
