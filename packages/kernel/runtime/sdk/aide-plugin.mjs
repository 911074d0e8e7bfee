// The runtime of `@aide/plugin` (packages/plugin/src/index.ts) as a sandboxed plugin imports it:
// the SDK's types vanish when compiled and what is left are these identity helpers, and
// `splitMessage` (generated from the package's source: ./split.mjs). This copy
// ships with the runner, so a compartment reaches no node_modules at all; a kernel test keeps it
// in step with the package (same exports, same behaviour).

/** The manifest, typed. */
export const definePlugin = (manifest) => manifest

/** A tool, typed. */
export const defineTool = (tool) => tool

/** An agent, typed. */
export const defineAgent = (agent) => agent

/** A channel (or a function of the plugin's settings returning one), typed. */
export const defineChannel = (channel) => channel

export { splitMessage } from "./split.mjs"
