/**
 * Embedding the kernel with three Layers swapped:
 * - threads kept in memory (`MemoryThreads`), not in SQL;
 * - a model provider of our own (`local`, a tiny echo model) added to the registry, selectable
 *   in the config like any built-in one;
 * - a password hasher wrapping the default one (counting hashes, e.g. for a metric).
 * Then the owner's auth lifecycle and one chat turn, with no HTTP.
 *
 * Run: `npx -y pnpm@10.20.0 --filter @aide/example-embed-kernel start`
 */

import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { LanguageModelV3 } from "@ai-sdk/provider"
import {
  AppConfig,
  Auth,
  Chat,
  Ids,
  Kernel,
  MemoryThreads,
  ModelRegistry,
  PasswordHasher,
  Threads,
  TitleGenerator,
} from "@aide/kernel"
import { Effect, Layer, Stream } from "effect"
import { echoModel } from "./echoModel.js"

/** Our own hasher: the given one, counting how often it runs. */
export const countingHasher = (counter: { hashes: number }) =>
  Layer.effect(
    PasswordHasher.PasswordHasher,
    Effect.map(PasswordHasher.PasswordHasher, (inner) => ({
      hash: (password: string) => Effect.tap(inner.hash(password), () => Effect.sync(() => counter.hashes++)),
      verify: inner.verify,
    })),
  ).pipe(Layer.provide(PasswordHasher.layerTest))

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
  const auth = yield* Auth.Auth
  const device = { userAgent: "embed-example", ip: "127.0.0.1" }
  const first = yield* auth.setup("correct horse battery staple", device)
  const principal = yield* auth.authenticate(first.token)
  const rotated = yield* auth.refresh(first.refreshToken)
  const sessions = yield* auth.listSessions(principal)
  yield* auth.logout(principal)
  const afterLogout = yield* Effect.either(auth.authenticate(rotated.token))

  // Select our provider, then chat: the answer streams from it and lands in the memory threads.
  yield* (yield* AppConfig.AppConfig).patch({ models: { operator: { provider: "local", model: "echo-1" } } })
  const chat = yield* Chat.Chat
  const run = yield* chat.send({ parts: [{ type: "text", text: "Hello kernel" }] })
  yield* Stream.runDrain(run.events)
  const messages = yield* (yield* Threads.Threads).messages(run.threadId)
  const reply = (messages.at(-1)?.parts ?? []).find(
    (part): part is { type: "text"; text: string } => (part as { type?: unknown }).type === "text",
  )

  return { sessions: sessions.length, loggedOut: afterLogout._tag === "Left", reply: reply?.text }
})

export const run = () => {
  const counter = { hashes: 0 }
  const kernel = Kernel.layer({
    dataDir: mkdtempSync(join(tmpdir(), "aide-embed-")),
    threads: MemoryThreads.layer.pipe(Layer.provide(Ids.layer)),
    modelRegistry: withLocalProvider(echoModel("echo-1")),
    passwordHasher: countingHasher(counter),
    titles: TitleGenerator.layerFallback,
  })
  return Effect.runPromise(Effect.provide(program, kernel)).then((result) => ({ ...result, hashes: counter.hashes }))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((result) => console.log(result))
}
