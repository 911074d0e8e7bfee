import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { AppConfig, ChannelConversations, ChannelGateway, Inbox, type Kernel } from "@aide/kernel"
import { Effect, type Layer, ManagedRuntime, Option } from "effect"
import { testKernel } from "../effect/TestKernel.js"
import { FakeModelServer } from "../FakeModelServer.js"
import { approvalProbe } from "../fixtures/approvalProbe.js"
import { manifestId, waitLoaded } from "../plugin/PluginHarness.js"

export interface ChannelHarnessOptions {
  /** The plugin folder (the one holding `aide.plugin.json`). */
  readonly directory: string
  /** Its settings (`plugins.<id>` without `enabled`). */
  readonly config?: Readonly<Record<string, unknown>>
  /** The host environment its declared variables are read from. */
  readonly env?: Readonly<Record<string, string>>
  /** The channel to drive, when the plugin has several; default its first. */
  readonly channelId?: string
  /** Process limits and egress policy; default: HTTP to loopback allowed (fakes run there). */
  readonly loader?: Kernel.KernelOptions["pluginLoader"]
}

/** A channel plugin loaded in a real kernel (SQLite in a temporary folder, the fake model). */
export interface ChannelHarness {
  readonly pluginId: string
  readonly channelId: string
  /** `<pluginId>:<channelId>`: its destination key. */
  readonly key: string
  /** The fake model every chat run asks (script its turns). */
  readonly model: FakeModelServer
  /** Inputs the approval probe tool (`probe_delete_file`, needs approval) ran with. */
  readonly probeExecutions: ReadonlyArray<unknown>
  /** Runs an effect against the kernel's services. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Kernel.KernelServices>) => Promise<A>
  readonly pairings: () => Promise<ChannelGateway.PluginPairings>
  readonly decidePairing: (code: string, approved: boolean) => Promise<void>
  /** The Aide thread a conversation of the channel is bound to, if any. */
  readonly threadOf: (conversationId: string) => Promise<string | undefined>
  /** Puts a message in the inbox addressed to the channel (what a scheduled task's result does). */
  readonly notify: (subject: string, body: string) => Promise<string>
  /** The inbox message's delivery status (`pending`, `sent`, `failed`). */
  readonly inboxStatus: (id: string) => Promise<string>
  /** The realtime connection's state (null for a channel without one). */
  readonly connection: () => Promise<ChannelGateway.ConnectionStatus | null>
  readonly close: () => Promise<void>
}

/**
 * Starts a kernel with the channel plugin enabled and waits until its channel is registered.
 * The approval probe tool is there for approvals; the model is a `FakeModelServer`.
 */
export const startChannel = async (options: ChannelHarnessOptions): Promise<ChannelHarness> => {
  const directory = Path.resolve(options.directory)
  const pluginId = await manifestId(directory)
  const dataDir = await Fs.mkdtemp(Path.join(Os.tmpdir(), "aide-channel-"))
  const model = await FakeModelServer.start()
  const probe = approvalProbe()
  const env = { ...options.env, OPENAI_COMPATIBLE_BASE_URL: model.url }
  const kernel = testKernel({
    dataDir,
    env,
    plugins: { paths: [directory], env },
    tools: probe.tools,
    scheduler: { enabled: false },
    pluginLoader: options.loader ?? { egress: { allowHttp: true, allowedKinds: ["loopback"] } },
  }) as Layer.Layer<Kernel.KernelServices, unknown>
  const runtime = ManagedRuntime.make(kernel)
  const run = <A, E>(effect: Effect.Effect<A, E, Kernel.KernelServices>) => runtime.runPromise(effect)
  const close = async () => {
    await runtime.dispose()
    await model.close()
    await Fs.rm(dataDir, { recursive: true, force: true })
  }
  const configure = (config: Readonly<Record<string, unknown>>) =>
    run(
      Effect.flatMap(AppConfig.AppConfig, (app) =>
        app.patch({
          models: { operator: { provider: "openai-compatible", model: "fake-model" } },
          plugins: { [pluginId]: { ...config, enabled: true } },
        }),
      ),
    )
  const endpoint = async () => {
    for (let attempt = 0; attempt < 300; attempt++) {
      const listed = await run(Effect.flatMap(ChannelGateway.ChannelGateway, (gateway) => gateway.endpoints))
      const found = listed.find(
        (entry) =>
          entry.pluginId === pluginId && (options.channelId === undefined || entry.channelId === options.channelId),
      )
      if (found !== undefined) return found
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(
      `the plugin registered no channel${options.channelId === undefined ? "" : ` "${options.channelId}"`}`,
    )
  }
  let channelId: string
  try {
    await configure(options.config ?? {})
    await run(waitLoaded(pluginId))
    channelId = (await endpoint()).channelId
  } catch (error) {
    await close()
    throw error
  }
  const key = `${pluginId}:${channelId}`
  const gateway = <A, E>(use: (gateway: ChannelGateway.ChannelGateway["Type"]) => Effect.Effect<A, E>) =>
    run(Effect.flatMap(ChannelGateway.ChannelGateway, use))
  return {
    pluginId,
    channelId,
    key,
    model,
    probeExecutions: probe.executions,
    run,
    pairings: () => gateway((g) => g.pairings(pluginId)),
    decidePairing: (code, approved) => gateway((g) => Effect.asVoid(g.decidePairing(pluginId, code, approved))),
    threadOf: (conversationId) =>
      run(
        Effect.flatMap(ChannelConversations.ChannelConversations, (store) =>
          Effect.map(store.threadOf({ pluginId, channelId, conversationId }), Option.getOrUndefined),
        ),
      ),
    notify: (subject, body) =>
      run(
        Effect.flatMap(Inbox.Inbox, (inbox) =>
          Effect.map(inbox.create({ subject, body, destination: key }), (m) => m.id),
        ),
      ),
    inboxStatus: (id) => run(Effect.flatMap(Inbox.Inbox, (inbox) => Effect.map(inbox.get(id), (m) => m.status))),
    connection: () =>
      gateway((g) => Effect.map(g.endpoints, (list) => list.find((entry) => entry.key === key)?.connection ?? null)),
    close,
  }
}
