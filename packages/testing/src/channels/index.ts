/**
 * @aide/testing/channels — the channel conformance kit: `runChannelConformance` registers the
 * checks every Aide channel passes (owner-only, pairing, one thread per conversation, approvals,
 * notifications, splitting, reconnect, no duplicate after a retry), run against a real kernel
 * with your plugin loaded and your fake platform behind a `ChannelDriver`. `startChannel` is the
 * harness underneath, for checks of your own.
 */

export {
  type ChannelConformanceOptions,
  type ConformanceCheck,
  conformanceChecks,
  runChannelConformance,
} from "./ChannelConformance.js"
export { type ChannelDriver, userOf } from "./ChannelDriver.js"
export { type ChannelHarness, type ChannelHarnessOptions, startChannel } from "./ChannelHarness.js"
