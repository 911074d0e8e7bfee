/** @aide/testing/plugin — run a plugin in a real Aide kernel, in its real sandbox, from its tests. */
export { type PluginHarness, type PluginHarnessOptions, startPlugin } from "./PluginHarness.js"
