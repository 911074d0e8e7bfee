import { UrlRedaction } from "@aide/kernel/internal"
import { Cause, Either, HashMap, Logger, LogLevel } from "effect"
import { terminalText } from "./TerminalText.js"

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

/** A logged value with the credentials and query values of every URL in it masked. */
const redactValue = (value: unknown): unknown =>
  typeof value === "string"
    ? UrlRedaction.redactText(value)
    : value instanceof Error
      ? UrlRedaction.redactText(String(value))
      : value

/**
 * A logged failure whose text `rewrite` changes (a URL with credentials masked, control sequences
 * removed), as one error with the rewritten text (printed the same way: first line, then its
 * trace); any other cause is left as it is.
 */
const rewriteCause = (cause: Cause.Cause<unknown>, rewrite: (text: string) => string): Cause.Cause<unknown> => {
  if (Cause.isEmpty(cause)) return cause
  const text = Cause.pretty(cause)
  const masked = rewrite(text)
  if (masked === text) return cause
  const newline = masked.indexOf("\n")
  const error = new Error((newline === -1 ? masked : masked.slice(0, newline)).replace(/^Error: /, ""))
  error.stack = masked
  return Cause.die(error)
}

/**
 * Every line's message, annotations and cause with URL credentials masked: the last net under
 * the sources that already redact (provider errors, MCP servers, egress), for a library message
 * that names a URL we did not foresee (the memory's model calls log their failure's cause).
 */
const redacting = <A>(logger: Logger.Logger<unknown, A>) =>
  Logger.mapInputOptions(logger, (options) => ({
    ...options,
    message: Array.isArray(options.message) ? options.message.map(redactValue) : redactValue(options.message),
    annotations: HashMap.map(options.annotations, redactValue),
    cause: rewriteCause(options.cause, UrlRedaction.redactText),
  }))

const printableValue = (value: unknown): unknown =>
  typeof value === "string" ? terminalText(value) : value instanceof Error ? terminalText(String(value)) : value

/**
 * For a terminal: every line's message, annotations and cause without control sequences. A
 * plugin's load error is logged with its own message, which must not set the operator's window
 * title or paint a fake line; the `json` format escapes them already.
 */
const printableOnTerminal = <A>(logger: Logger.Logger<unknown, A>) =>
  Logger.mapInputOptions(logger, (options) => ({
    ...options,
    message: Array.isArray(options.message) ? options.message.map(printableValue) : printableValue(options.message),
    annotations: HashMap.map(options.annotations, printableValue),
    cause: rewriteCause(options.cause, terminalText),
  }))

export const loggerLayer = (format: LogFormat) =>
  Logger.replace(
    Logger.defaultLogger,
    redacting(
      format === "pretty" ? printableOnTerminal(Logger.prettyLoggerDefault) : Logger.withConsoleLog(Logger.jsonLogger),
    ),
  )
