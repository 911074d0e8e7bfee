/**
 * `@aide/testing/effect` and `/contracts` check their optional peers when imported: a missing one
 * fails with the command that installs it, not Node's "Cannot find package".
 */
import { describe, expect, it } from "vitest"
import { effectVitestPeers, postgresPeers, requirePeers } from "../src/effect/Peers.js"

const here = import.meta.url

describe("requirePeers", () => {
  it("names each missing package and the command installing it", () => {
    const peers = {
      entry: "@aide/testing/effect",
      packages: ["vitest", "@aide/no-such-package", "@aide/nor-this-one"],
      install: "npm i -D @aide/no-such-package",
    }
    expect(() => requirePeers(here, peers)).toThrow(
      "@aide/testing/effect needs @aide/no-such-package and @aide/nor-this-one (optional peers of @aide/testing), not installed: npm i -D @aide/no-such-package",
    )
  })

  it("passes when every peer is installed (here: vitest and @effect/vitest)", () => {
    expect(() => requirePeers(here, effectVitestPeers)).not.toThrow()
  })

  it("installs the versions package.json asks of its peers", async () => {
    const { peerDependencies } = (await import("../package.json", { with: { type: "json" } })).default
    for (const peers of [effectVitestPeers, postgresPeers]) {
      for (const name of peers.packages) {
        expect(peerDependencies).toHaveProperty(name)
        expect(peers.install).toContain(`${name}@${peerDependencies[name as keyof typeof peerDependencies]}`)
      }
    }
  })
})
