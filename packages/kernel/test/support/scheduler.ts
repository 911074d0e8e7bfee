import * as Path from "node:path"
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider"
import { SqlClient } from "@effect/sql"
import { simulateReadableStream } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { Chunk, Effect, Layer, Redacted, TestClock } from "effect"
import * as PasswordHasher from "../../src/auth/PasswordHasher.js"
import { type Channel, ChannelDeliveryError } from "../../src/channels/Channel.js"
import * as ChannelRegistry from "../../src/channels/ChannelRegistry.js"
import * as TitleGenerator from "../../src/chat/TitleGenerator.js"
import * as Kernel from "../../src/Kernel.js"
import { ModelRegistry } from "../../src/models/ModelRegistry.js"
import * as SqliteStorage from "../../src/storage/SqliteStorage.js"
import { Threads } from "../../src/threads/Threads.js"
import { tempDirectory } from "./files.js"

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/** What a provider streams for a text answer. */
export const answer = (text: string): Array<LanguageModelV3StreamPart> => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "0" },
  { type: "text-delta", id: "0", delta: text },
  { type: "text-end", id: "0" },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
]

/**
 * The model of a test kernel: answers each call with `reply(n)` (n from 1), or holds the call
 * until `release()` when `hold` is set. `calls` lists the prompts it was sent.
 */
export class TestModel {
  reply: (call: number) => string = () => "Done."
  hold = false
  readonly calls: Array<string> = []
  private waiting: Array<() => void> = []

  release() {
    const waiting = this.waiting
    this.waiting = []
    for (const resume of waiting) resume()
  }

  readonly model = new MockLanguageModelV3({
    doStream: async (options) => {
      const prompt = options.prompt.at(-1)
      const text = JSON.stringify(prompt?.content ?? "")
      this.calls.push(text)
      const n = this.calls.length
      if (this.hold) {
        await new Promise<void>((resolve, reject) => {
          this.waiting.push(resolve)
          options.abortSignal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))
        })
      }
      return {
        stream: simulateReadableStream({ chunks: answer(this.reply(n)), initialDelayInMs: null, chunkDelayInMs: null }),
      }
    },
  })
}

/** A channel that fails every delivery. */
export const failingChannel: Channel = {
  key: "pager",
  displayName: "Broken pager",
  supportsNotifications: true,
  send: () => Effect.fail(new ChannelDeliveryError({ channel: "pager", message: "unreachable" })),
}

/**
 * The whole default kernel (`Kernel.layer`) on the SQLite file `dataDir/aide.db`, with `model`
 * as the operator model. Building it twice on one directory is a restart.
 */
export const kernelLayer = (dataDir: string, model: TestModel) =>
  Kernel.layer({
    dataDir,
    storage: SqliteStorage.layer({ filename: Path.join(dataDir, "aide.db") }),
    signingSecret: Redacted.make(new Uint8Array(32).fill(7)),
    passwordHasher: PasswordHasher.layerTest,
    titles: TitleGenerator.layerFallback,
    chat: { maxRetries: 0 },
    modelRegistry: Layer.succeed(
      ModelRegistry,
      ModelRegistry.of({
        providerIds: [],
        providers: Effect.succeed([]),
        languageModel: () => Effect.succeed({ model: model.model, settings: {} }),
      }),
    ),
    channels: ChannelRegistry.channel(failingChannel),
    inbox: { backoff: "1 second", factor: 1, attempts: 2 },
  })

export type KernelServices = Kernel.KernelServices

/** A fresh data directory and model; `run` runs a body against a kernel started on them (a restart each time). */
export const fixture = Effect.gen(function* () {
  const dir = yield* tempDirectory
  const model = new TestModel()
  return {
    model,
    run: <A, E>(body: Effect.Effect<A, E, KernelServices>) => Effect.provide(body, kernelLayer(dir, model)),
  }
})

/** Real time passes (the database answers) while the TestClock stands still. */
export const breathe = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

/** Polls `check` until it holds, for up to 10 s of real time. */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, what: string) =>
  Effect.gen(function* () {
    const deadline = performance.now() + 10_000
    while (performance.now() < deadline) {
      if (yield* check) return
      yield* breathe
    }
    throw new Error(`timed out waiting for: ${what}`)
  })

/** Waits until some fiber sleeps until exactly `millis`, then moves the clock there. */
export const advanceTo = (millis: number) =>
  Effect.gen(function* () {
    yield* eventually(
      Effect.map(TestClock.sleeps(), (sleeps) => Chunk.some(sleeps, (wake) => wake === millis)),
      `a sleep until ${new Date(millis).toISOString()}`,
    )
    yield* TestClock.setTime(millis)
  })

/** Lets background fibers run for ~100 ms of real time while the TestClock stands still. */
export const settle = Effect.gen(function* () {
  for (let n = 0; n < 20; n++) yield* breathe
})

export interface LedgerRow {
  readonly dueAt: string
  readonly status: string
  readonly error: string | null
  readonly inboxMessageId: string | null
}

/** The run ledger of a task, oldest first. */
export const ledger = (taskId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LedgerRow>`SELECT due_at AS "dueAt", status, error, inbox_message_id AS "inboxMessageId"
      FROM schedule_runs WHERE task_id = ${taskId} ORDER BY due_at`,
  )

/** Waits until the task's ledger has `count` finished rows; answers them. */
export const awaitRuns = (taskId: string, count: number) =>
  Effect.gen(function* () {
    yield* eventually(
      Effect.map(ledger(taskId), (rows) => rows.filter((row) => row.status !== "running").length >= count),
      `${count} finished run(s) of ${taskId}`,
    )
    return yield* ledger(taskId)
  })

/** The text of the thread's messages, in order. */
export const threadTexts = (threadId: string) =>
  Effect.flatMap(Threads, (threads) =>
    Effect.map(threads.messages(threadId), (messages) =>
      messages.map((message) =>
        (message.parts as ReadonlyArray<{ type?: string; text?: string }>)
          .filter((part) => part.type === "text")
          .map((part) => part.text)
          .join(""),
      ),
    ),
  )
