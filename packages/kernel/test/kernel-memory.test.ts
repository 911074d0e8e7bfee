import * as Fs from "node:fs"
import { singleModelRegistry, tempDirectory } from "@aide/testing/effect"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as Auth from "../src/auth/Auth.js"
import * as PasswordHasher from "../src/auth/PasswordHasher.js"
import * as Chat from "../src/chat/Chat.js"
import * as TitleGenerator from "../src/chat/TitleGenerator.js"
import * as AppConfig from "../src/config/AppConfig.js"
import * as Kernel from "../src/Kernel.js"
import { Threads } from "../src/threads/Threads.js"
import { answer, scriptedModel, textOf } from "./support/chat.js"

const client = { userAgent: "test", ip: "127.0.0.1" }

/** Every file under `directory`, recursively. */
const filesUnder = (directory: string): ReadonlyArray<string> =>
  Fs.readdirSync(directory, { recursive: true, encoding: "utf8" })

describe("Kernel.layerMemory", () => {
  it.scopedLive("runs setup, config, chat and threads with every store in memory, and writes no file", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDirectory
      const kernel = Kernel.layerMemory({
        dataDir,
        passwordHasher: PasswordHasher.layerTest,
        titles: TitleGenerator.layerFallback,
        modelRegistry: singleModelRegistry(scriptedModel(answer("Hello ", "from memory"))),
        chat: { maxRetries: 0 },
      })
      const result = yield* Effect.gen(function* () {
        const auth = yield* Auth.Auth
        expect(yield* auth.isSetup).toBe(false)
        const pair = yield* auth.setup("correct horse battery staple", client)
        yield* auth.authenticate(pair.token)
        const config = yield* AppConfig.AppConfig
        yield* config.patch({ identity: { name: "Jarvis" } })
        const chat = yield* Chat.Chat
        const run = yield* chat.send({ threadId: "memory-thread", parts: [{ type: "text", text: "hi" }] })
        yield* Stream.runDrain(run.events)
        const threads = yield* Threads
        const messages = yield* threads.messages("memory-thread")
        const listed = yield* threads.list({ page: 0, perPage: 10 })
        return { name: (yield* config.get).identity.name, messages, listed }
      }).pipe(Effect.provide(kernel))
      expect(result.name).toBe("Jarvis")
      expect(result.messages.map((message) => message.role)).toEqual(["user", "assistant"])
      expect(textOf(result.messages[1])).toBe("Hello from memory")
      expect(result.listed.threads.map((thread) => thread.id)).toEqual(["memory-thread"])
      // No database, no signing secret, no plugin cache: the data directory stays empty.
      expect(filesUnder(dataDir)).toEqual([])
    }),
  )

  it.scopedLive("with no dataDir, nothing of the kernel's appears in the working directory either", () =>
    Effect.gen(function* () {
      const before = new Set(Fs.readdirSync(process.cwd()))
      yield* Effect.flatMap(Auth.Auth, (auth) => auth.isSetup).pipe(
        Effect.provide(Kernel.layerMemory({ passwordHasher: PasswordHasher.layerTest })),
      )
      expect(Fs.readdirSync(process.cwd()).filter((file) => !before.has(file))).toEqual([])
    }),
  )
})

// The layer type is the default kernel's: it swaps in wherever `Kernel.layer` was used.
const _sameType: Layer.Layer<Kernel.KernelServices, Kernel.KernelError> = Kernel.layerMemory()
void _sameType
