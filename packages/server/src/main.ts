#!/usr/bin/env node
// Not the "@effect/platform-node" barrel: it re-exports undici (1 MB), evaluated at every start.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Layer, Logger, LogLevel } from "effect"
import * as Server from "./Server.js"
import * as ServerConfig from "./ServerConfig.js"

/** The `aide-server` process: configuration from the environment, JSON logs, clean shutdown on signals. */
const program = Effect.gen(function* () {
  const config = yield* ServerConfig.fromEnv
  const server = yield* Layer.build(Server.layer(config))
  const url = yield* Effect.provide(Server.baseUrl, server)
  yield* Effect.logInfo("listening").pipe(
    Effect.annotateLogs({
      url,
      storage: config.databaseUrl._tag === "Some" ? "postgresql" : "sqlite",
      dataDir: config.dataDir,
    }),
  )
  yield* Effect.addFinalizer(() => Effect.logInfo("shutting down"))
  return yield* Effect.never
}).pipe(Effect.scoped)

const logFormat = process.env.AIDE_LOG_FORMAT === "pretty" ? Logger.pretty : Logger.json
const logLevel = LogLevel.fromLiteral((process.env.AIDE_LOG_LEVEL ?? "Info") as LogLevel.Literal)

// A startup failure is logged here, inside the JSON logger: runMain's own report (disabled
// below) would print it outside, as logfmt. The exit code is still 1.
const reportFailure = Effect.tapErrorCause((cause: Cause.Cause<unknown>) =>
  Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("startup failed", cause),
)

NodeRuntime.runMain(program.pipe(reportFailure, Effect.provide(logFormat), Logger.withMinimumLogLevel(logLevel)), {
  disablePrettyLogger: true,
  disableErrorReporting: true,
})
