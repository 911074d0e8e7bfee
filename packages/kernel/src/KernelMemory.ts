import * as Crypto from "node:crypto"
import * as Os from "node:os"
import * as Path from "node:path"
import { Layer, Redacted } from "effect"
import * as Ids from "./ids/Ids.js"
import * as Kernel from "./Kernel.js"
import * as MemoryStores from "./stores/MemoryStores.js"

export interface KernelMemoryOptions extends Omit<Kernel.KernelOptions, "dataDir" | "storage"> {
  /**
   * Only where plugins are found (`<dataDir>/plugins`): nothing is written there. Default: none
   * (a path that does not exist, so no plugin is found).
   */
  readonly dataDir?: string
}

/**
 * The kernel with every store in this process's memory (`MemoryStores.layers`): it opens no
 * database and writes no file. The access-token key is random per process unless
 * `signingSecret` is given (sessions die with the process anyway, with the stores). Any store
 * option you pass replaces its in-memory default, as for `Kernel.layer`.
 *
 * @example
 * const kernel = Kernel.layerMemory({ env: process.env })
 */
export const layerMemory = (
  options: KernelMemoryOptions = {},
): Layer.Layer<Kernel.KernelServices, Kernel.KernelError> =>
  Kernel.layer({
    ...options,
    // Never created: the plugin scan of a missing folder finds nothing and writes nothing.
    dataDir: options.dataDir ?? Path.join(Os.tmpdir(), `aide-memory-${Crypto.randomUUID()}`),
    signingSecret: options.signingSecret ?? Redacted.make(new Uint8Array(Crypto.randomBytes(32))),
    authStore: options.authStore ?? MemoryStores.layers.authStore,
    configStore: options.configStore ?? MemoryStores.layers.configStore,
    threads: options.threads ?? MemoryStores.layers.threads.pipe(Layer.provide(options.ids ?? Ids.layer)),
    chatRuns: options.chatRuns ?? MemoryStores.layers.chatRuns,
    inboxStore: options.inboxStore ?? MemoryStores.layers.inboxStore,
    mcpOAuthStore: options.mcpOAuthStore ?? MemoryStores.layers.mcpOAuthStore,
    runLedger: options.runLedger ?? MemoryStores.layers.runLedger,
    memoryStore: options.memoryStore ?? MemoryStores.layers.memoryStore,
    observationStore: options.observationStore ?? MemoryStores.layers.observationStore,
    recallIndex: options.recallIndex ?? MemoryStores.layers.recallIndex,
    channelConversations: options.channelConversations ?? MemoryStores.layers.channelConversations,
    webhookReplays: options.webhookReplays ?? MemoryStores.layers.webhookReplays,
  })
