import { Cause, Context, Effect, FiberMap, Layer, Stream } from "effect"
import { ChannelGateway, type EndpointInfo } from "../../channels/gateway/ChannelGateway.js"
import { AppConfig } from "../../config/AppConfig.js"
import type { AppConfigDocument } from "../../config/ConfigModel.js"
import { ModelRegistry } from "../../models/ModelRegistry.js"
import { ToolRegistry } from "../../tools/ToolRegistry.js"
import { Tools } from "../../tools/Tools.js"
import { PluginCatalog } from "../PluginCatalog.js"
import type { DiscoveredPlugin } from "../PluginDiscovery.js"
import type { PluginManifest } from "../PluginManifest.js"
import type { PluginView } from "../PluginView.js"
import type { PluginDescription, PluginProcess } from "../sandbox/PluginProcess.js"
import { declarationAlerts } from "./Declarations.js"
import { type PluginState, withState } from "./LoadedView.js"
import { type LoadedPlugin, type LoadOptions, load } from "./LoadPlugin.js"
import { channelRequests, endpointOf } from "./PluginChannels.js"
import { toolSource } from "./PluginToolSource.js"

export interface PluginLoaderOptions extends Partial<LoadOptions> {}

/**
 * Runs the plugins the owner enabled: each in its own processes (see `PluginProcess`), its tools
 * and agents registered while it runs. Follows the config live, like MCP servers: enabling,
 * disabling or reconfiguring a plugin takes effect without a restart. Disabled plugins, and
 * plugins with problems (`validationErrors`), are never started: none of their code runs.
 *
 * Contract for an implementation (`Kernel.layer({ pluginLoaderLayer })`; `NoPlugins` is one): what a
 * plugin provides reaches the kernel only through `ToolRegistry` (tools, agents) and
 * `ChannelGateway` (channels), registered while it runs and removed when it stops; the Layer
 * builds without waiting for plugins; closing its scope stops them. `list` answers
 * `GET /api/plugins` and never fails.
 */
export class PluginLoader extends Context.Tag("@aide/kernel/PluginLoader")<
  PluginLoader,
  {
    /** SPEC `GET /api/plugins`: the catalog with what each loaded plugin actually provides. */
    readonly list: Effect.Effect<ReadonlyArray<PluginView>>
    /** The plugin's state now (undefined: not enabled or never started). */
    readonly state: (pluginId: string) => Effect.Effect<PluginState | undefined>
  }
>() {}

type Loadable = DiscoveredPlugin & { readonly manifest: PluginManifest }

/** What tells one start of a plugin from the next: its folder, manifest and settings. */
const fingerprint = (plugin: DiscoveredPlugin, values: unknown) =>
  JSON.stringify([plugin.directory, plugin.manifest, values])

/**
 * How a start went, in the log: an entry that failed to load, or code that differs from the
 * manifest's declarations, is an error with its reasons (as on the listing), never a quiet INFO.
 */
const logLoaded = (loaded: LoadedPlugin, descriptions: ReadonlyArray<PluginDescription>, count: number) => {
  const declared = declarationAlerts(loaded.manifest, descriptions)
  const errors = [...descriptions.flatMap((description) => description.alerts), ...declared.tools, ...declared.agents]
    .filter((alert) => alert.level === "error")
    .map((alert) => alert.message)
  const channels = descriptions.reduce((sum, description) => sum + description.channels.length, 0)
  if (errors.length === 0) return Effect.logInfo(`plugin loaded with ${count} tools and agents`)
  const what =
    count + channels === 0 ? "plugin failed to load" : `plugin loaded with ${count} tools and agents, and errors`
  return Effect.logError(`${what}: ${errors.join("; ")}`)
}

export const make = (options: PluginLoaderOptions = {}) =>
  Effect.gen(function* () {
    const appConfig = yield* AppConfig
    const catalog = yield* PluginCatalog
    const registry = yield* ToolRegistry
    const tools = yield* Tools
    const models = yield* ModelRegistry
    const deps = { tools, models, config: appConfig.get }
    const gateway = yield* ChannelGateway
    const loadOptions: LoadOptions = { hostEnv: {}, onRequest: channelRequests(gateway), ...options }

    const states = new Map<string, { readonly fingerprint: string; state: PluginState }>()
    const fibers = yield* FiberMap.make<string>()

    const run = (
      plugin: DiscoveredPlugin & { readonly manifest: PluginManifest },
      values: Readonly<Record<string, unknown>>,
    ) => {
      const entry = { fingerprint: fingerprint(plugin, values), state: { status: "loading" } as PluginState }
      states.set(plugin.id, entry)
      const serve = Effect.gen(function* () {
        const loaded: LoadedPlugin = yield* load(plugin, values, deps, loadOptions)
        // Read at each run: a restarted process brings its new description.
        yield* registry.register(toolSource(plugin.id, loaded.definitions))
        const descriptions = yield* loaded.descriptions
        for (const [index, description] of descriptions.entries()) {
          const process = loaded.processes[index] as PluginProcess
          for (const channel of description.channels) {
            yield* gateway.register(
              endpointOf(plugin.id, process, channel, values, loaded.env, plugin.manifest.configFields ?? []),
            )
          }
        }
        entry.state = { status: "loaded", loaded }
        yield* logLoaded(loaded, descriptions, (yield* loaded.definitions).length)
        return yield* Effect.never
      }).pipe(
        Effect.scoped,
        // A start error, or a defect (a channel id the gateway refuses…): the plugin is listed
        // as failed with why. Being stopped or replaced is not a failure.
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          const failure = Cause.failureOption(cause)
          const message = failure._tag === "Some" ? failure.value.message : Cause.pretty(cause).split("\n")[0]
          return Effect.zipRight(
            Effect.logWarning(`plugin failed to start: ${message}`),
            Effect.sync(() => {
              entry.state = { status: "failed", error: message ?? "unexpected failure" }
            }),
          )
        }),
        Effect.annotateLogs({ plugin: plugin.id }),
      )
      return FiberMap.run(fibers, plugin.id, serve)
    }

    const stop = (id: string) =>
      Effect.zipRight(
        FiberMap.remove(fibers, id),
        Effect.sync(() => states.delete(id)),
      )

    /**
     * What should run under `document`: each plugin (first of its id) that is enabled and valid,
     * with the fingerprint of that start. Others are absent.
     */
    const wantedUnder = (plugins: ReadonlyArray<DiscoveredPlugin>, document: AppConfigDocument) => {
      const views = catalog.viewsOf(plugins, document)
      const wanted = new Map<
        string,
        { plugin: Loadable; values: Readonly<Record<string, unknown>>; fingerprint: string }
      >()
      plugins.forEach((plugin, index) => {
        const view = views[index]
        if (wanted.has(plugin.id) || plugin.manifest === null || view === undefined) return
        if (!view.enabled || view.validationErrors.length > 0) return
        const values = document.plugins[plugin.id] ?? {}
        wanted.set(plugin.id, {
          plugin: { ...plugin, manifest: plugin.manifest },
          values,
          fingerprint: fingerprint(plugin, values),
        })
      })
      return { views, wanted }
    }

    const reconcile = Effect.fn("PluginLoader.reconcile")(function* (document: AppConfigDocument) {
      const { wanted } = wantedUnder(yield* catalog.discovered, document)
      for (const id of [...states.keys()]) if (!wanted.has(id)) yield* stop(id)
      for (const [id, start] of wanted) {
        if (states.get(id)?.fingerprint !== start.fingerprint) yield* run(start.plugin, start.values)
      }
    })

    // The first reconcile only forks the plugins' starts: startup never waits for a plugin.
    yield* reconcile(yield* appConfig.get)
    yield* appConfig.changes.pipe(Stream.runForEach(reconcile), Effect.forkScoped)

    // Read against the config as it is now: a plugin whose settings changed a moment ago is shown
    // "Loading" (or not running) at once, before the reconcile that follows the change catches up.
    const list = Effect.gen(function* () {
      const { views, wanted } = wantedUnder(yield* catalog.discovered, yield* appConfig.get)
      const available = yield* tools.list
      const endpoints = yield* gateway.endpoints
      return yield* Effect.forEach(views, (view) => {
        const start = wanted.get(view.id)
        const entry = states.get(view.id)
        const state: PluginState | undefined =
          start === undefined
            ? undefined
            : entry?.fingerprint === start.fingerprint
              ? entry.state
              : { status: "loading" }
        return state?.status === "loaded"
          ? Effect.map(state.loaded.descriptions, (descriptions) =>
              withConnection(
                withState(view, { status: "loaded", descriptions, loaded: state.loaded }, available),
                endpoints,
              ),
            )
          : Effect.succeed(withState(view, state, available))
      })
    })

    return PluginLoader.of({ list, state: (id) => Effect.sync(() => states.get(id)?.state) })
  })

/**
 * The view with its realtime channel's connection (the first one not connected, if any): a
 * channel that keeps failing shows it, with why, on its card and in GET /api/plugins.
 */
const withConnection = (view: PluginView, endpoints: ReadonlyArray<EndpointInfo>): PluginView => {
  const channels = view.provides.channels
  const held = endpoints.filter((endpoint) => endpoint.pluginId === view.id && endpoint.connection !== null)
  const status = (held.find((endpoint) => endpoint.connection?.state !== "connected") ?? held[0])?.connection
  if (channels === undefined || status === undefined || status === null) return view
  const connection = { ...status, since: status.since.toISOString() }
  return { ...view, provides: { ...view.provides, channels: { ...channels, connection } } }
}

/** The loader following `AppConfig`; closing it stops every plugin process. */
export const layer = (
  options: PluginLoaderOptions = {},
): Layer.Layer<
  PluginLoader,
  never,
  AppConfig | PluginCatalog | ToolRegistry | Tools | ModelRegistry | ChannelGateway
> => Layer.scoped(PluginLoader, make(options))
