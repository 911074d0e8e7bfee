import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { Effect, Either, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { discover } from "../../src/plugins/PluginDiscovery.js"
import { folderOf, PluginManifest } from "../../src/plugins/PluginManifest.js"

/**
 * Issue 32 item 8: a plugin id names folders (the precompiled modules' cache, `aide plugin dev`'s
 * link), so it is one path segment, in the schema and again wherever it is joined into a path.
 */
const escaping = ["../x", "../../trav-escape-link", "..", ".", "a/b", "a\\b", "/abs", ".hidden", ""]
const manifest = (id: string) => ({ manifestVersion: 1, id, name: "A plugin", provides: {} })

describe("plugin ids are one path segment", () => {
  const root = mkdtempSync(Path.join(tmpdir(), "aide-plugin-ids-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it("the manifest schema refuses an id that is not", () => {
    for (const id of escaping)
      expect(Either.isLeft(Schema.decodeUnknownEither(PluginManifest)(manifest(id))), id).toBe(true)
    expect(Either.isRight(Schema.decodeUnknownEither(PluginManifest)(manifest("a..b")))).toBe(true)
  })

  it("folderOf joins a plugin id and refuses anything else", () => {
    for (const id of escaping) expect(folderOf(root, id), id).toBeUndefined()
    expect(folderOf(root, "web-fetch")).toBe(Path.join(root, "web-fetch"))
  })

  it("a discovered manifest with such an id is listed with its problem, never as a loadable plugin", async () => {
    const folder = Path.join(root, "plugins", "escape")
    mkdirSync(folder, { recursive: true })
    writeFileSync(Path.join(folder, "aide.plugin.json"), JSON.stringify(manifest("../../trav-escape-link")))
    const [found] = await Effect.runPromise(discover({ pluginsDir: Path.join(root, "plugins") }, "0.1.0"))
    expect(found?.manifest).toBeNull()
    expect(found?.problems.join("\n")).toMatch(/id/)
  })
})
