import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { definePlugin, type PluginManifest as SdkManifest } from "@aide/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Either, JSONSchema, Schema } from "effect"
import { PluginManifest } from "../src/plugins/PluginManifest.js"

// The SDK's type and the loader's schema describe one manifest: each converts to the other.
type LoaderManifest = typeof PluginManifest.Type
export const sdkToLoader = (manifest: SdkManifest): LoaderManifest => manifest
export const loaderToSdk = (manifest: LoaderManifest): SdkManifest => manifest

/** The published JSON Schema of `aide.plugin.json` (regenerate: AIDE_UPDATE_SCHEMA=1 vitest run this file). */
const published = fileURLToPath(new URL("../../../docs/plugin-manifest.schema.json", import.meta.url))
const generated = { title: "aide.plugin.json", ...JSONSchema.make(PluginManifest) }

const decode = Schema.decodeUnknownEither(PluginManifest, { onExcessProperty: "error" })

describe("the plugin manifest", () => {
  it("docs/plugin-manifest.schema.json is the schema the loader checks", () => {
    if (process.env.AIDE_UPDATE_SCHEMA === "1") writeFileSync(published, `${JSON.stringify(generated, null, 2)}\n`)
    // Compared as data: the file is formatted by the repository's formatter.
    expect(JSON.parse(readFileSync(published, "utf8"))).toEqual(generated)
  })

  it("a manifest written with the SDK's definePlugin passes the loader's checks", () => {
    const manifest = definePlugin({
      manifestVersion: 1,
      id: "weather",
      name: "Weather",
      envVars: [{ name: "WEATHER_API_KEY", required: true }],
      configFields: [{ key: "units", label: "Units", type: "enum", options: [{ value: "metric" }] }],
      provides: { tools: [{ entry: "tools.js", permissions: { network: ["api.weather.example"], time: true } }] },
    })
    expect(Either.isRight(decode(manifest))).toBe(true)
  })

  it("accepts a minimal manifest and refuses ids with colons, paths out of the folder, unknown keys", () => {
    const minimal = { manifestVersion: 1, id: "notes", name: "Notes", provides: {} }
    expect(Either.isRight(decode(minimal))).toBe(true)
    expect(Either.isLeft(decode({ ...minimal, id: "a:b" }))).toBe(true)
    expect(Either.isLeft(decode({ ...minimal, provides: { tools: [{ entry: "../../etc/passwd" }] } }))).toBe(true)
    expect(Either.isLeft(decode({ ...minimal, provides: { tools: [{ entry: "/abs/tool.js" }] } }))).toBe(true)
    expect(Either.isLeft(decode({ ...minimal, manifestVersion: 2 }))).toBe(true)
    expect(Either.isLeft(decode({ ...minimal, surprise: true }))).toBe(true)
    expect(Either.isLeft(decode({ ...minimal, configFields: [{ key: "mode", label: "Mode", type: "enum" }] }))).toBe(
      true,
    )
  })

  it("accepts declared tools and agents, and refuses an id declared twice or with a colon", () => {
    const declaring = (tools: ReadonlyArray<object>) => ({
      manifestVersion: 1,
      id: "notes",
      name: "Notes",
      provides: {
        tools: [
          { entry: "a.js", tools },
          { entry: "b.js", tools: [{ id: "other", name: "Other" }] },
        ],
        agents: [{ entry: "agent.js", agents: [{ id: "helper", name: "Helper", description: "helps" }] }],
      },
    })
    expect(Either.isRight(decode(declaring([{ id: "add", name: "Add", description: "Adds a note" }])))).toBe(true)
    const twice = decode(declaring([{ id: "other", name: "Again" }]))
    expect(Either.isLeft(twice) && String(twice.left)).toContain('tool id "other" is declared twice')
    expect(Either.isLeft(decode(declaring([{ id: "a:b", name: "Colon" }])))).toBe(true)
    expect(Either.isLeft(decode(declaring([{ id: "add" }])))).toBe(true)
  })
})
