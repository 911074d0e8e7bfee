import * as Path from "node:path"
import { Kernel, ModelRegistry, PasswordHasher, SqliteStorage, TitleGenerator } from "@aide/kernel"
import type { SqlClient } from "@effect/sql"
import type { LanguageModel } from "ai"
import { Effect, Layer, Redacted } from "effect"

/** A `ModelRegistry` answering every selection with `model` (and listing no provider). */
export const singleModelRegistry = (model: LanguageModel): Layer.Layer<ModelRegistry.ModelRegistry> =>
  Layer.succeed(
    ModelRegistry.ModelRegistry,
    ModelRegistry.ModelRegistry.of({
      providerIds: [],
      providers: Effect.succeed([]),
      languageModel: () => Effect.succeed({ model, settings: {} }),
    }),
  )

export interface TestKernelOptions extends Partial<Kernel.KernelOptions> {
  readonly dataDir: string
  /** The model every selection resolves to (an AI SDK mock model, or a provider pointed at `FakeModelServer`). */
  readonly model?: LanguageModel
}

/**
 * The default kernel as a test wants it: SQLite in `dataDir` (merged beside the kernel, so tests
 * may also read the database), a fixed signing key, minimal-cost password hashing, titles off,
 * no provider retries, and `model` for every model selection. Any option overrides.
 * Building it twice on one directory is a restart.
 */
export const testKernel = (
  options: TestKernelOptions,
): Layer.Layer<Kernel.KernelServices | SqlClient.SqlClient, unknown> => {
  const { model, ...rest } = options
  const storage = rest.storage ?? SqliteStorage.layer({ filename: Path.join(rest.dataDir, "aide.db") })
  const kernel = Kernel.layer({
    signingSecret: Redacted.make(new Uint8Array(32).fill(7)),
    passwordHasher: PasswordHasher.layerTest,
    titles: TitleGenerator.layerFallback,
    ...(model === undefined ? {} : { modelRegistry: singleModelRegistry(model) }),
    ...rest,
    chat: { maxRetries: 0, ...rest.chat },
    storage,
  })
  return Layer.merge(kernel, storage)
}
