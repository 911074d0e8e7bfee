/**
 * Embedding the kernel in a host application that has its own sign-in, with nothing on disk:
 * - auth is the host's: `HostAuth` accepts the JWTs the host already issues (here HS256 with a
 *   key the host shares with Aide; a JWKS URL works the same), Aide keeps no password;
 * - the scheduler never fires by itself (`ManualScheduler`): the host's own cron or queue calls
 *   `runDue`, as a serverless trigger would;
 * - no data directory: SQLite in memory, threads kept in memory (`MemoryThreads`), no plugins;
 * - a model provider of our own (`local`, a tiny echo model) added to the registry, selectable
 *   in the config like any built-in one.
 * Then one authenticated request's worth of work and one chat turn, with no HTTP.
 *
 * Run: `npx -y pnpm@10.20.0 --filter @aide/example-embed-kernel start`
 */

import type { LanguageModelV3 } from "@ai-sdk/provider"
import {
  AppConfig,
  Auth,
  Chat,
  HostAuth,
  Ids,
  Kernel,
  ManualScheduler,
  MemoryThreads,
  ModelRegistry,
  NoPlugins,
  RecallIndex,
  Scheduler,
  SqliteStorage,
  Threads,
  TitleGenerator,
} from "@aide/kernel"
import { Effect, Layer, Redacted, Stream } from "effect"
import * as Jose from "jose"
import { echoModel } from "./echoModel.js"

/** The host application's token key (in real life: from its secret store, never in code). */
const hostKey = new TextEncoder().encode("the host application's signing key, 32 bytes or more")

/** What the host's login already does: a short-lived JWT for the signed-in user's device. */
export const hostSignIn = (user: string, device: string) =>
  Effect.promise(() =>
    new Jose.SignJWT({ sid: device })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user)
      .setIssuer("https://host.example")
      .setAudience("aide")
      .setExpirationTime("10m")
      .sign(hostKey),
  )

/**
 * The default registry plus a provider `local` (think: a model running in-process, Bedrock, a
 * company gateway). It is listed like the built-ins, so `models.operator.provider: "local"` is
 * accepted by the config and `GET /api/models` would show it.
 */
export const withLocalProvider = (model: LanguageModelV3) =>
  Layer.effect(
    ModelRegistry.ModelRegistry,
    Effect.map(ModelRegistry.ModelRegistry, (builtIn) =>
      ModelRegistry.ModelRegistry.of({
        providerIds: [...builtIn.providerIds, "local"],
        providers: Effect.map(builtIn.providers, (providers) => [
          ...providers,
          {
            id: "local",
            name: "Local echo model",
            models: [model.modelId],
            configured: true,
            docUrl: "https://example.com/local-model",
            gateway: null,
            envVars: [],
          },
        ]),
        languageModel: (selection) =>
          selection.provider === "local" ? Effect.succeed({ model, settings: {} }) : builtIn.languageModel(selection),
      }),
    ),
  ).pipe(Layer.provide(ModelRegistry.layer({ env: {} })))

export const program = Effect.gen(function* () {
  // A request arrives with the host's token: Aide verifies it, there is no Aide login.
  const auth = yield* Auth.Auth
  const principal = yield* auth.authenticate(yield* hostSignIn("ada", "ada-laptop"))
  const login = yield* Effect.either(auth.login("any password", { userAgent: "embed-example", ip: "127.0.0.1" }))

  // Select our provider, then chat: the answer streams from it and lands in the memory threads.
  yield* (yield* AppConfig.AppConfig).patch({ models: { operator: { provider: "local", model: "echo-1" } } })
  const chat = yield* Chat.Chat
  const run = yield* chat.send({ parts: [{ type: "text", text: "Hello kernel" }] })
  yield* Stream.runDrain(run.events)
  const messages = yield* (yield* Threads.Threads).messages(run.threadId)
  const reply = (messages.at(-1)?.parts ?? []).find(
    (part): part is { type: "text"; text: string } => (part as { type?: unknown }).type === "text",
  )

  // A daily task; nothing fires until the host's own trigger calls runDue.
  yield* (yield* Scheduler.Scheduler).create({ name: "Digest", prompt: "Summarise my day", cron: "0 18 * * *" })
  const due = yield* (yield* ManualScheduler.ManualScheduler).runDue

  return {
    sessionId: principal.sessionId,
    passwordLogin: login._tag === "Left" ? login.left._tag : "accepted",
    reply: reply?.text,
    nextRun: due.nextDueAt !== undefined,
  }
})

export const run = () => {
  const kernel = Kernel.layer({
    // No dataDir: nothing here needs the disk (Kernel.layer says which option is missing if so).
    authLayer: HostAuth.layer({ key: Redacted.make(hostKey), issuer: "https://host.example", audience: "aide" }),
    schedulerLayer: ManualScheduler.layer(),
    storage: SqliteStorage.layer({ filename: ":memory:" }),
    threads: MemoryThreads.layer.pipe(Layer.provide(Ids.layer)),
    // Threads outside SQL: the SQL recall index would find nothing, so say what recall uses.
    recallIndex: RecallIndex.layerEmpty,
    pluginLoaderLayer: NoPlugins.layer,
    modelRegistry: withLocalProvider(echoModel("echo-1")),
    titles: TitleGenerator.layerFallback,
  })
  return Effect.runPromise(Effect.provide(program, kernel))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((result) => console.log(result))
}
