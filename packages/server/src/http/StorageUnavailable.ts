/**
 * Whether a failure is the database being out of reach (refused, reset, timed out, shutting
 * down) rather than a fault of ours: the server then answers 503 with `Retry-After` instead of
 * 500, and the client tries again once PostgreSQL is back. Found by walking the error's `cause`
 * chain (`StorageError` → `SqlError` → the driver's error).
 */
const networkCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH"])

/** SQLSTATE class 08 (connection exception), and the server shutting down or starting (57P01–57P03). */
const unavailableState = (code: string) => code.startsWith("08") || /^57P0[123]$/.test(code)

const unavailableMessage =
  /timeout exceeded when trying to connect|connection terminated|connection timed out|timed out|connection error|ECONNREFUSED/i

/** Seconds a client is told to wait (`Retry-After`): about one pool acquire timeout. */
export const retryAfterSeconds = 5

export const isStorageUnavailable = (failure: unknown): boolean => {
  let current: unknown = failure
  let sawStorage = false
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const error = current as { readonly _tag?: unknown; readonly code?: unknown; readonly message?: unknown }
    if (error._tag === "StorageError") sawStorage = true
    if (sawStorage) {
      if (typeof error.code === "string" && (networkCodes.has(error.code) || unavailableState(error.code))) return true
      if (typeof error.message === "string" && unavailableMessage.test(error.message)) return true
    }
    current = (current as { readonly cause?: unknown }).cause
  }
  return false
}
