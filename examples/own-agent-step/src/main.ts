/**
 * `aide-server` with the scripted agent step in place of the AI SDK's `streamText`: the same HTTP
 * API, configured from the environment (docs/configuration.md). Try it with the web console or
 * `aide chat`: "remember I like tea", "what do you remember", "open the door" (approve it).
 * A model must still be configured (`models.operator`): the step is given it, and ignores it.
 */
import { Server, ServerConfig } from "@aide/server"
import { Effect } from "effect"
import { homeTools } from "./home.js"
import * as ScriptedStep from "./scriptedStep.js"

const config = Effect.runSync(ServerConfig.fromEnv)
const server = Server.layer({ ...config, kernel: { agentStep: ScriptedStep.layer(), tools: homeTools } })

Effect.runFork(
  Effect.gen(function* () {
    yield* Effect.logInfo(`Aide with a scripted agent step at ${yield* Server.baseUrl}`)
    return yield* Effect.never
  }).pipe(Effect.provide(server)),
)
