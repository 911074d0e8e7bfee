import { StreamHub } from "@aide/kernel"
// Not the "@effect/platform-node" barrel: it re-exports undici (1 MB), evaluated at every start.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Either, Layer, Logger } from "effect"
import * as Server from "../Server.js"
import * as ServerConfig from "../ServerConfig.js"
import { loggerLayer, parseLogFormat, parseLogLevel } from "./LogSettings.js"
import * as StartupFailure from "./StartupFailure.js"

/** The configuration, once read: a startup failure names the port or directory it concerns. */
let config: ServerConfig.ServerConfig | undefined

/**
 * The `aide-server` process: configuration from the environment, logs as text on a terminal and
 * JSON lines otherwise, clean shutdown on signals. `started` runs once the server listens.
 */
const program = (started: () => void) =>
  Effect.gen(function* () {
    config = yield* ServerConfig.fromEnv
    const server = yield* Layer.build(Server.layer(config))
    const url = yield* Effect.provide(Server.baseUrl, server)
    const hub = yield* Effect.provide(StreamHub.StreamHub, server)
    started()
    yield* Effect.logInfo("listening").pipe(
      Effect.annotateLogs({
        url,
        storage: config.databaseUrl._tag === "Some" ? "postgresql" : "sqlite",
        dataDir: config.dataDir,
      }),
    )
    // Runs first on a signal: the HTTP server then waits for open chat streams to end.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        const running = (yield* hub.activeThreadIds).length
        yield* Effect.logInfo("shutting down").pipe(Effect.annotateLogs({ chatRuns: running }))
        if (running > 0)
          yield* Effect.logWarning(
            `waiting for ${running} chat run${running === 1 ? "" : "s"} to finish; press Ctrl-C again to force`,
          )
      }),
    )
    return yield* Effect.never
  }).pipe(Effect.scoped)

/** Settings the logger itself depends on: refused with one line, before anything runs. */
const refuse = (line: string): never => {
  process.stderr.write(`aide-server: ${line}\n`)
  process.exit(1)
}

// A startup failure: one human line on stderr first, then the detail through the logger (JSON
// or text like every other line). runMain's own report (disabled below) would print it as logfmt.
// The exit code is still 1.
const reportFailure = Effect.tapErrorCause((cause: Cause.Cause<unknown>) =>
  Cause.isInterruptedOnly(cause)
    ? Effect.void
    : Effect.zipRight(
        Effect.sync(() =>
          process.stderr.write(`aide-server: could not start: ${StartupFailure.describe(cause, config)}\n`),
        ),
        Effect.logError("startup failed", cause),
      ),
)

/**
 * One Ctrl-C often arrives as several SIGINTs at once: the terminal signals the whole process
 * group, and `pnpm start` forwards its own copy. runMain's handler starts the graceful shutdown
 * on the first and then leaves, so a copy would kill the process at once (losing the shutdown
 * and making pnpm report "Command failed"). Copies within a second are the same keypress and
 * ignored; a later one is the owner pressing again, and forces the exit.
 */
const forceOnRepeat = () => {
  let first: number | undefined
  const onSignal = () => {
    const now = Date.now()
    if (first === undefined) first = now
    else if (now - first >= 1_000) {
      process.stderr.write("aide-server: forced exit; streams still running were cut\n")
      process.exit(130)
    }
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
}

/** Runs the server process until a signal ends it; `started` runs once it listens. */
export const run = (started: () => void) => {
  const logLevel = Either.getOrElse(parseLogLevel(process.env.AIDE_LOG_LEVEL), refuse)
  const logFormat = Either.getOrElse(parseLogFormat(process.env.AIDE_LOG_FORMAT, process.stdout.isTTY === true), refuse)
  forceOnRepeat()
  NodeRuntime.runMain(
    program(started).pipe(reportFailure, Effect.provide(loggerLayer(logFormat)), Logger.withMinimumLogLevel(logLevel)),
    { disablePrettyLogger: true, disableErrorReporting: true },
  )
}
