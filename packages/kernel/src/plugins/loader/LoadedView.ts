import { webhookPath } from "../../channels/gateway/ChannelEndpoint.js"
import type { ToolInfo } from "../../tools/Tools.js"
import { isAllowedEnvAlert } from "../PluginEnv.js"
import type { Alert, PluginView } from "../PluginView.js"
import type { PluginDescription } from "../sandbox/PluginProcess.js"
import { declarationAlerts } from "./Declarations.js"
import type { LoadedPlugin } from "./LoadPlugin.js"
import { agentTools } from "./PluginAgent.js"

/** Where a plugin is in its life, as the loader knows it. */
export type PluginState =
  | { readonly status: "loading" }
  | { readonly status: "failed"; readonly error: string }
  | { readonly status: "loaded"; readonly loaded: LoadedPlugin }

/** A loaded plugin's state with its processes' descriptions read. */
type ViewedState =
  | Exclude<PluginState, { readonly status: "loaded" }>
  | {
      readonly status: "loaded"
      readonly loaded: LoadedPlugin
      readonly descriptions: ReadonlyArray<PluginDescription>
    }

const hostWarning: Alert = { level: "warning", message: "Runs with full trust (sandbox: host)" }

/**
 * A catalog view (what the manifest and the config say) completed with what the loader knows:
 * the tools, agents and channels the plugin's code actually provides, or why it is not loaded.
 */
export const withState = (
  view: PluginView,
  state: ViewedState | undefined,
  available: ReadonlyArray<ToolInfo>,
): PluginView => {
  if (state === undefined || !view.enabled) return view
  if (state.status !== "loaded") {
    const alert: Alert =
      state.status === "loading"
        ? { level: "info", message: "Loading" }
        : { level: "error", message: `Not loaded: ${state.error}` }
    const provides = view.provides
    // A plugin of channels only has no alerts to carry why it failed: its errors do.
    const channelsOnly = provides.tools === undefined && provides.agents === undefined
    return {
      ...view,
      ...(channelsOnly && state.status === "failed"
        ? { validationErrors: [...view.validationErrors, alert.message] }
        : {}),
      provides: {
        ...(provides.tools === undefined
          ? {}
          : { tools: { ...provides.tools, alerts: [alert, ...provides.tools.alerts.slice(1)] } }),
        ...(provides.agents === undefined ? {} : { agents: { ...provides.agents, alerts: [alert] } }),
        ...(provides.channels === undefined ? {} : { channels: provides.channels }),
      },
    }
  }
  const alerts = state.descriptions.flatMap((description) => description.alerts)
  const declared = declarationAlerts(state.loaded.manifest, state.descriptions)
  const tools = state.descriptions.flatMap((description) => description.tools)
  const agents = state.descriptions.flatMap((description) => description.agents)
  const channels = state.descriptions.flatMap((description) => description.channels)
  const provides = view.provides
  const webhookChannel = channels.find((channel) => channel.webhook !== null)
  // A plugin of channels only has no alerts: an entry that failed to load is one of its errors.
  const channelsOnly = provides.tools === undefined && provides.agents === undefined
  const failures = alerts.filter((alert) => alert.level === "error").map((alert) => alert.message)
  return {
    ...view,
    ...(channelsOnly && failures.length > 0 ? { validationErrors: [...view.validationErrors, ...failures] } : {}),
    provides: {
      ...(provides.tools === undefined
        ? {}
        : {
            tools: {
              ...provides.tools,
              toolIds: tools.map((tool) => `${view.id}:${tool.id}`),
              tools: tools.map((tool) => ({
                id: `${view.id}:${tool.id}`,
                name: tool.name,
                description: tool.description,
              })),
              alerts: [
                ...alerts,
                ...declared.tools,
                ...(provides.tools.sandbox === "host" ? [hostWarning] : []),
                ...provides.tools.alerts.filter(isAllowedEnvAlert),
              ],
            },
          }),
      ...(provides.agents === undefined
        ? {}
        : {
            agents: {
              agentIds: agents.map((agent) => `${view.id}:${agent.id}`),
              agents: agents.map((agent) => ({
                id: `${view.id}:${agent.id}`,
                name: agent.name,
                description: agent.description,
                instructions: agent.instructions,
                model: state.loaded.agentModel(agent),
                tools: agentTools(view.id, state.loaded.agentUses(agent), tools, available),
                alerts: [],
              })),
              alerts: [...(provides.tools === undefined ? alerts : []), ...declared.agents],
            },
          }),
      ...(provides.channels === undefined
        ? {}
        : {
            channels: {
              loaded: channels.length > 0,
              webhook: channels.length > 0 ? webhookChannel !== undefined : null,
              realtime: channels.length > 0 ? channels.some((channel) => channel.realtime) : null,
              webhookPath:
                channels.length === 0
                  ? null
                  : webhookChannel === undefined
                    ? null
                    : webhookPath(view.id, webhookChannel.id),
            },
          }),
    },
  }
}
