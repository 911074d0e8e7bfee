/**
 * The shell blocks of docs/cli.md and the README's quick tour with the CLI, run verbatim, in
 * order, in bash with `set -euo pipefail`, against a real server whose model is the fake
 * OpenAI-compatible server behind the real `openai` provider (packages/server's docs-commands
 * test plans these blocks as "cli": they run here).
 *
 * The only rewrites, as in the server's docs test: `http://127.0.0.1:4111` becomes the test
 * server's address. `aide` on the PATH is this clone's bin/aide.mjs; `AIDE_URL`, `AIDE_DATA_DIR`
 * and `PORT` point at the test server, as an operator's shell would. Fixtures: the plugin tarball
 * the plugin block installs; the server is stopped before `aide restore` (which requires it).
 */
import { execFile, execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { FakeModelServer } from "@aide/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../../server/test/support/server.js"
import { bin, cliEnv, root } from "./support/cli.js"

interface Block {
  readonly file: string
  readonly line: number
  readonly text: string
}

/** The ```sh blocks of a markdown file, with their line. */
const shellBlocks = (file: string, from?: string, to?: string): Array<Block> => {
  let text = readFileSync(join(root, file), "utf8")
  const offset = from === undefined ? 0 : text.slice(0, text.indexOf(from)).split("\n").length - 1
  if (from !== undefined) text = text.slice(text.indexOf(from))
  if (to !== undefined && text.indexOf(to, 1) > 0) text = text.slice(0, text.indexOf(to, 1))
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[index]!)) continue
    const start = index + 1
    while (index + 1 < lines.length && !lines[index + 1]!.startsWith("```")) index++
    blocks.push({ file, line: offset + start + 1, text: lines.slice(start, index + 1).join("\n") })
    index++
  }
  return blocks
}

const weatherPlugin = (dir: string) => {
  const folder = join(dir, "weather-src")
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "aide-plugin-weather", version: "1.0.0" }))
  writeFileSync(
    join(folder, "aide.plugin.json"),
    JSON.stringify({
      manifestVersion: 1,
      id: "weather",
      name: "Weather",
      version: "1.0.0",
      configFields: [{ key: "apiToken", label: "API token", type: "password", required: true }],
      provides: { tools: [{ entry: "tools.js" }] },
    }),
  )
  writeFileSync(
    join(folder, "tools.js"),
    `export default [{ id: "forecast", name: "Forecast", description: "Tomorrow's weather",
  parameters: { type: "object", properties: {} }, execute: () => ({ sky: "clear" }) }]\n`,
  )
  execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: folder })
}

const suites = [
  { name: "docs/cli.md", blocks: shellBlocks("docs/cli.md") },
  { name: "README.md, the quick tour", blocks: shellBlocks("README.md", "## Quick tour", "\n## ") },
]

for (const suite of suites) {
  describe(`the shell blocks of ${suite.name}`, () => {
    let model: FakeModelServer
    let server: TestServer | undefined
    let work: string
    let env: Record<string, string>

    beforeAll(async () => {
      model = await FakeModelServer.start()
      work = mkdtempSync(join(tmpdir(), "aide-cli-docs-"))
      // A data directory of its own: the server is stopped before `aide restore`, which needs the directory.
      const dataDir = join(work, ".aide")
      mkdirSync(dataDir, { mode: 0o700 })
      server = await startServer({ dataDir, env: { OPENAI_API_KEY: "docs-test-key", OPENAI_BASE_URL: model.url } })
      // `aide` as a user has it on the PATH.
      const binDir = join(work, "bin")
      mkdirSync(binDir)
      writeFileSync(join(binDir, "aide"), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`)
      chmodSync(join(binDir, "aide"), 0o755)
      weatherPlugin(work)
      env = cliEnv({
        PATH: `${binDir}:${process.env.PATH}`,
        AIDE_CLI_CONFIG: join(work, "config", "cli.json"),
        AIDE_URL: server.url,
        AIDE_DATA_DIR: dataDir,
        PORT: new URL(server.url).port,
        HOST: "127.0.0.1",
      })
    })
    afterAll(async () => {
      await server?.close()
      await model?.close()
      rmSync(work, { recursive: true, force: true })
    })

    it("exist", () => {
      expect(suite.blocks.length).toBeGreaterThan(1)
    })

    for (const block of suite.blocks) {
      it(`${block.file}:${block.line}: ${block.text.split("\n")[0]}`, async () => {
        if (block.text.includes("aide restore")) {
          await server?.close()
          server = undefined
        }
        const script = `set -euo pipefail\n${block.text.replaceAll("http://127.0.0.1:4111", env.AIDE_URL!)}`
        const result = await promisify(execFile)("bash", ["-c", script], { cwd: work, env, timeout: 60_000 }).catch(
          (error: { code: number; stdout: string; stderr: string }) => {
            throw new Error(`exit ${error.code}\n--- stdout\n${error.stdout}\n--- stderr\n${error.stderr}`)
          },
        )
        expect(result.stderr).not.toMatch(/aide: /)
        if (block.text.includes("aide backup")) expect(existsSync(join(work, "aide-backup.db"))).toBe(true)
      })
    }
  })
}
