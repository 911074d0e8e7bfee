import { Cause, ConfigError, Option } from "effect"
import type { ServerConfig } from "../ServerConfig.js"

/** A Node system error somewhere in a failure's chain (`cause`, `error`): `code`, maybe `path`. */
interface SystemError {
  readonly code: string
  readonly path?: string | undefined
  readonly syscall?: string | undefined
  readonly hostname?: string | undefined
}

const findSystemError = (value: unknown, depth = 0): SystemError | undefined => {
  if (typeof value !== "object" || value === null || depth > 8) return undefined
  const record = value as Record<string, unknown>
  if (typeof record.code === "string" && /^E[A-Z]+$/.test(record.code)) return record as unknown as SystemError
  for (const key of ["cause", "error", "errors"]) {
    const inner = record[key]
    const found = Array.isArray(inner)
      ? inner.map((item) => findSystemError(item, depth + 1)).find((error) => error !== undefined)
      : findSystemError(inner, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

const messageOf = (value: unknown): string =>
  value instanceof Error || (typeof value === "object" && value !== null && "message" in value)
    ? String((value as { message: unknown }).message)
    : String(value)

/**
 * One line an operator can act on, for a failure before the server listened. The JSON detail
 * is logged after it; this line names the setting to change and never a secret (the database
 * URL is not repeated, only its host).
 */
export const describe = (cause: Cause.Cause<unknown>, config: ServerConfig | undefined): string => {
  const failure = Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))
  if (ConfigError.isConfigError(failure))
    return failure._op === "InvalidData" && failure.path.length <= 1 && failure.message.includes(failure.path[0] ?? "")
      ? failure.message
      : `invalid configuration: ${String(failure).replace(/^\(|\)$/g, "")}`
  const system = [...Cause.failures(cause), ...Cause.defects(cause)]
    .map((error) => findSystemError(error))
    .find((error) => error !== undefined)
  if (system !== undefined && config !== undefined) {
    const where = `${config.host}:${config.port}`
    if (system.code === "EADDRINUSE")
      return `port ${config.port} on ${config.host} is already in use (set PORT to another port)`
    if (system.syscall === "listen" || system.code === "EADDRNOTAVAIL")
      return `cannot listen on ${where}: ${system.code} (check HOST and PORT)`
    if (["ENOTFOUND", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN", "EHOSTUNREACH"].includes(system.code))
      return `cannot reach the PostgreSQL server of DATABASE_URL (${system.code}${system.hostname ? ` ${system.hostname}` : ""})`
    if (["EACCES", "EPERM", "EROFS", "ENOTDIR", "EEXIST", "ENOSPC"].includes(system.code))
      return `cannot write the data directory ${system.path ?? config.dataDir} (${system.code}); set AIDE_DATA_DIR to a writable directory`
  }
  return messageOf(failure).split("\n")[0] ?? "unknown failure"
}
