#!/usr/bin/env node
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
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

NodeRuntime.runMain(program.pipe(Effect.provide(logFormat), Logger.withMinimumLogLevel(logLevel)), {
  disablePrettyLogger: true,
})
