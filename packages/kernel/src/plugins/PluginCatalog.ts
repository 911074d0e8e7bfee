import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import type { AppConfigDocument } from "../config/ConfigModel.js"
import type { JsonObject } from "../config/MergePatch.js"
import { agentModel } from "./loader/PluginSettings.js"
import { configProblems, shownConfig } from "./PluginConfigCheck.js"
import { type DiscoveredPlugin, type DiscoveryRoots, discover } from "./PluginDiscovery.js"
import { aidesOwnDeclared, allowedEnv, allowedMessage, declaredNames, refusedMessage } from "./PluginEnv.js"
import type { ConfigFieldDescriptor, PluginManifest } from "./PluginManifest.js"
import { checkPluginsPatch, redactPlugins } from "./PluginSecrets.js"
import type { PluginView } from "./PluginView.js"

export interface PluginCatalogOptions extends DiscoveryRoots {
  /** The host's environment: which declared variables are set (values never leave it). */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** The Aide version manifests' `aide` ranges are checked against. */
  readonly aideVersion?: string
}

/** The Aide version of this kernel (manifests' `aide` ranges are checked against it). */
export const aideVersion = "0.1.0"

/**
 * The plugins the owner has: every manifest found, with what the config and the environment
 * say about it (SPEC `GET /api/plugins`). Scanned again at each listing, so a plugin installed
 * into the folder appears without a restart; nothing here runs plugin code.
 */
export class PluginCatalog extends Context.Tag("@aide/kernel/PluginCatalog")<
  PluginCatalog,
  {
    readonly discovered: Effect.Effect<ReadonlyArray<DiscoveredPlugin>>
    readonly list: Effect.Effect<ReadonlyArray<PluginView>>
    /** The views of `plugins` (a scan's result) under `config`: `list` without its own scan. */
    readonly viewsOf: (plugins: ReadonlyArray<DiscoveredPlugin>, config: AppConfigDocument) => ReadonlyArray<PluginView>
    /**
     * A config patch checked against the plugins' declared fields (values of the wrong type are
     * problems) with redacted passwords restored from `current`; see `PluginSecrets`.
     */
    readonly checkPatch: (
      current: AppConfigDocument,
      body: JsonObject,
    ) => Effect.Effect<{ readonly body: JsonObject; readonly problems: ReadonlyArray<string> }>
    /** The document with every plugin password field redacted, for showing it. */
    readonly redact: (config: AppConfigDocument) => Effect.Effect<AppConfigDocument>
  }
>() {}

const notLoaded = { level: "info" as const, message: "Not loaded: the plugin is disabled or not yet started" }

/**
 * The tools and agents the manifest declares, as the listing shows them before the plugin's
 * code runs (an agent's instructions and tools are known only once it is loaded).
 */
const declaredOf = (pluginId: string, manifest: PluginManifest | null, values: Readonly<Record<string, unknown>>) => ({
  tools: (manifest?.provides.tools ?? []).flatMap((entry) =>
    (entry.tools ?? []).map((tool) => ({
      id: `${pluginId}:${tool.id}`,
      name: tool.name,
      description: tool.description ?? "",
    })),
  ),
  agents: (manifest?.provides.agents ?? []).flatMap((entry) =>
    (entry.agents ?? []).map((agent) => ({
      id: `${pluginId}:${agent.id}`,
      name: agent.name,
      description: agent.description ?? "",
      instructions: "",
      model: agentModel(values, agent.id) ?? entry.model ?? null,
      tools: [],
      alerts: [],
    })),
  ),
})

const viewOf = (
  plugin: DiscoveredPlugin,
  values: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): PluginView => {
  const manifest = plugin.manifest
  const fields = manifest?.configFields ?? []
  const envVars = (manifest?.envVars ?? []).map((variable) => ({
    name: variable.name,
    required: variable.required === true,
    configured: (env[variable.name] ?? "") !== "",
  }))
  const own = aidesOwnDeclared(manifest === null ? [] : declaredNames(manifest), allowedEnv(values))
  const missingEnv = envVars.filter((variable) => variable.required && !variable.configured)
  const tools = manifest?.provides.tools ?? []
  const declared = declaredOf(plugin.id, manifest, values)
  const host = tools.some((tool) => tool.sandbox === "host")
  const permissions = Object.assign({}, ...tools.map((tool) => tool.permissions ?? {}))
  return {
    id: plugin.id,
    name: manifest?.name ?? plugin.id,
    description: manifest?.description ?? null,
    author: manifest?.author ?? null,
    icon: manifest?.icon ?? null,
    version: manifest?.version ?? null,
    homepage: manifest?.homepage ?? null,
    repository: manifest?.repository ?? null,
    license: manifest?.license ?? null,
    envVars,
    envConfigured: missingEnv.length === 0,
    configFields: fields,
    enabled: values.enabled === true,
    config: shownConfig(fields, values),
    provides: {
      ...(tools.length === 0
        ? {}
        : {
            tools: {
              toolIds: declared.tools.map((tool) => tool.id),
              tools: declared.tools,
              sandbox: host ? ("host" as const) : ("compartment" as const),
              ...(Object.keys(permissions).length === 0 ? {} : { permissions }),
              requireApproval: tools.every((tool) => tool.requireApproval !== false),
              alerts: [
                notLoaded,
                ...(host ? [{ level: "warning" as const, message: "Runs with full trust (sandbox: host)" }] : []),
                ...own.allowed.map((name) => ({ level: "warning" as const, message: allowedMessage(plugin.id, name) })),
              ],
            },
          }),
      ...((manifest?.provides.agents ?? []).length === 0
        ? {}
        : {
            agents: {
              agentIds: declared.agents.map((agent) => agent.id),
              agents: declared.agents,
              alerts: [notLoaded],
            },
          }),
      ...((manifest?.provides.channels ?? []).length === 0
        ? {}
        : { channels: { loaded: false, webhook: null, realtime: null, webhookPath: null } }),
    },
    validationErrors: [
      ...plugin.problems,
      ...configProblems(plugin.id, fields, values),
      ...missingEnv.map((variable) => `environment variable ${variable.name} is required and not set`),
      ...own.refused.map((name) => refusedMessage(plugin.id, name)),
    ],
  }
}

export const layer = (options: PluginCatalogOptions = {}): Layer.Layer<PluginCatalog, never, AppConfig> =>
  Layer.effect(
    PluginCatalog,
    Effect.gen(function* () {
      const appConfig = yield* AppConfig
      const env = options.env ?? {}
      const discovered = discover(options, options.aideVersion ?? aideVersion)
      const viewsOf = (plugins: ReadonlyArray<DiscoveredPlugin>, config: AppConfigDocument) =>
        plugins.map((plugin) => viewOf(plugin, config.plugins[plugin.id] ?? {}, env))
      const fieldsById = Effect.map(discovered, (plugins) => {
        const fields = new Map<string, ReadonlyArray<ConfigFieldDescriptor>>()
        for (const plugin of plugins) {
          if (plugin.manifest !== null && !fields.has(plugin.id))
            fields.set(plugin.id, plugin.manifest.configFields ?? [])
        }
        return (id: string) => fields.get(id)
      })
      return PluginCatalog.of({
        discovered,
        // The folders are scanned only when plugins are concerned: most patches and reads are not.
        checkPatch: (current, body) =>
          Object.hasOwn(body, "plugins")
            ? Effect.map(fieldsById, (fieldsOf) => {
                const checked = checkPluginsPatch(fieldsOf, current.plugins, body.plugins)
                return { body: { ...body, plugins: checked.plugins } as JsonObject, problems: checked.problems }
              })
            : Effect.succeed({ body, problems: [] }),
        redact: (config) =>
          Object.keys(config.plugins).length === 0
            ? Effect.succeed(config)
            : Effect.map(fieldsById, (fieldsOf) => ({
                ...config,
                plugins: redactPlugins(fieldsOf, config.plugins) as AppConfigDocument["plugins"],
              })),
        list: Effect.gen(function* () {
          const config = yield* appConfig.get
          const plugins = yield* discovered
          return viewsOf(plugins, config)
        }),
        viewsOf,
      })
    }),
  )
