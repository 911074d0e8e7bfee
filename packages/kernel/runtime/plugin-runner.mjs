// Aide's plugin runner: one child process per (plugin, trust), started by the host
// (packages/kernel/src/plugins/sandbox/). Plain ESM, no build step. docs/plugin-sandbox.md
// describes the wire, the trust levels and what each may reach. When the kernel is built, a
// process starts from the same code bundled into one file instead (bundle-entry.cjs, start.cjs).
//
//   node [--experimental-permission --allow-fs-read=…] --max-old-space-size=N plugin-runner.mjs <trust> [modulesDir]

import { loadSes, lockdownOptions } from "./modules.mjs"
import { run } from "./runner.mjs"

const trust = process.argv[2] === "host" ? "host" : "compartment"
/** The plugin's precompiled modules (and SES's code cache), when the host made them. */
const modulesDir = process.argv[3]

// Lockdown comes first, before any plugin code and before the module transformer is loaded.
if (trust === "compartment") {
  loadSes(modulesDir)
  lockdown(lockdownOptions)
}

run({ trust, modulesDir })
