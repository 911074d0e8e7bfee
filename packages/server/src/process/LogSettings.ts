import { Either, Logger, LogLevel } from "effect"

/** Names accepted by `AIDE_LOG_LEVEL`, in any case; `warn` and `off` are the usual spellings. */
const levels: Record<string, LogLevel.LogLevel> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None,
  off: LogLevel.None,
}

/** `AIDE_LOG_LEVEL` (default info): a level, or the line that says what is accepted. */
export const parseLogLevel = (raw: string | undefined): Either.Either<LogLevel.LogLevel, string> => {
  if (raw === undefined || raw.trim() === "") return Either.right(LogLevel.Info)
  const level = levels[raw.trim().toLowerCase()]
  return level === undefined
    ? Either.left(
        `AIDE_LOG_LEVEL=${JSON.stringify(raw)} is not a log level (use one of: ${Object.keys(levels).join(", ")})`,
      )
    : Either.right(level)
}

export type LogFormat = "json" | "pretty"

/**
 * `AIDE_LOG_FORMAT`: `json` or `pretty`; unset, readable text on a terminal and JSON lines
 * otherwise (files, pipes, log collectors).
 */
export const parseLogFormat = (raw: string | undefined, isTerminal: boolean): Either.Either<LogFormat, string> => {
  const format = raw?.trim().toLowerCase() ?? ""
  if (format === "") return Either.right(isTerminal ? "pretty" : "json")
  if (format === "json" || format === "pretty") return Either.right(format)
  return Either.left(`AIDE_LOG_FORMAT=${JSON.stringify(raw)} is not a log format (use json or pretty)`)
}

export const loggerLayer = (format: LogFormat) => (format === "pretty" ? Logger.pretty : Logger.json)
