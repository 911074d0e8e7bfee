/**
 * The client example of the README, the package README and docs/client.md, run as a user runs
 * it: saved as `example.mjs` in a project outside the clone whose `node_modules/@aide/client` is
 * a link to packages/client (what `npm install /path/to/aide/packages/client` makes), and run
 * with `node`, against a real server. It imports the built `dist/` the clone's install leaves.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, password, startWithClient } from "./support.js"

const clientRoot = fileURLToPath(new URL("..", import.meta.url))
const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8")

/** The first ```ts block that starts with the client's import. */
const exampleOf = (markdown: string) => {
  const match = /```ts\n(import \{ createAideClient \} from "@aide\/client"\n[\s\S]*?)```/.exec(markdown)
  if (match === null) throw new Error("no client example found")
  return match[1]!
}

let server: ChatTestServer
let project: string
beforeAll(async () => {
  ;({ server } = await startWithClient())
  project = mkdtempSync(join(tmpdir(), "aide-client-user-"))
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module" }))
  mkdirSync(join(project, "node_modules", "@aide"), { recursive: true })
  symlinkSync(clientRoot, join(project, "node_modules", "@aide", "client"), "dir")
})
afterAll(async () => {
  await server.close()
  rmSync(project, { recursive: true, force: true })
})

describe("the README example", () => {
  it("is the same in the root README, the package README and docs/client.md", () => {
    const example = exampleOf(read("../README.md"))
    expect(exampleOf(read("../../../README.md"))).toBe(example)
    const clientDoc = read("../../../docs/client.md")
    expect(exampleOf(clientDoc.slice(clientDoc.indexOf("## Use it from another project")))).toBe(example)
  })

  it("the clone's install leaves the client importable: dist/ is built by its prepare script", () => {
    const manifest = JSON.parse(read("../package.json"))
    expect(manifest.scripts.prepare).toMatch(/^tsup\b/)
    expect(manifest.exports["."].import.default).toBe("./dist/index.js")
    expect(manifest.exports["."].require.default).toBe("./dist/index.cjs")
    expect(existsSync(join(clientRoot, "dist", "index.js"))).toBe(true)
    expect(existsSync(join(clientRoot, "dist", "index.cjs"))).toBe(true)
  })

  it("runs as written, with node, from another project", async () => {
    server.model.script({ text: "It is noon." })
    writeFileSync(join(project, "example.mjs"), exampleOf(read("../README.md")))
    const { stdout } = await promisify(execFile)(process.execPath, ["example.mjs"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", AIDE_URL: server.url, AIDE_PASSWORD: password },
      timeout: 30_000,
    })
    expect(stdout).toMatch(/^It is noon\.\n2 messages in [\w-]+\n$/)
  })
})
