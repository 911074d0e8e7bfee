import { existsSync, readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { PluginManifest } from "../src/plugins/PluginManifest.js"

// The first-party plugins (packages/plugin-*) are loaded by the same loader as anyone's: their
// manifests must pass the same checks, and their entries must ship in the published package.
const packages = fileURLToPath(new URL("../../", import.meta.url))
const plugins = readdirSync(packages).filter((name) => name.startsWith("plugin-"))
const decode = Schema.decodeUnknownEither(PluginManifest, { onExcessProperty: "error" })
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"))

describe("the first-party plugins' manifests", () => {
  it("there are first-party plugins to check", () => {
    expect(plugins).toEqual(
      expect.arrayContaining(["plugin-telegram", "plugin-webhook", "plugin-web-fetch", "plugin-email"]),
    )
  })

  describe.each(plugins)("%s", (name) => {
    const folder = `${packages}${name}/`
    const decoded = decode(readJson(`${folder}aide.plugin.json`))

    it("aide.plugin.json passes the loader's schema", () => {
      if (Either.isLeft(decoded)) expect.fail(ParseResult.TreeFormatter.formatErrorSync(decoded.left))
    })

    it("is the package @aide/<folder>, with the id after 'plugin-', shipping its manifest and entries", () => {
      const manifest = Either.getOrThrow(decoded)
      const pkg = readJson(`${folder}package.json`)
      expect(pkg.name).toBe(`@aide/${name}`)
      expect(pkg.type).toBe("module")
      expect(manifest.id).toBe(name.slice("plugin-".length))
      const entries = [
        ...(manifest.provides.tools ?? []),
        ...(manifest.provides.agents ?? []),
        ...(manifest.provides.channels ?? []),
      ].map((entry) => entry.entry)
      expect(entries.length).toBeGreaterThan(0)
      for (const entry of entries) {
        expect(existsSync(`${folder}${entry}`), entry).toBe(true)
        expect(
          pkg.files.some((shipped: string) => entry === shipped || entry.startsWith(`${shipped}/`)),
          entry,
        ).toBe(true)
      }
      expect(pkg.files).toContain("aide.plugin.json")
    })
  })
})
