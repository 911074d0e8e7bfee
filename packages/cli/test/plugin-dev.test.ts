/**
 * A first plugin, as an author writes it: `aide plugin new` scaffolds it, its generated test
 * passes as written, and `aide plugin dev` (in tmux, as in a terminal) runs it on a server and
 * restarts it on each save.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../server/test/support/chat.js"
import { password, request, setup, startServer, type TestServer } from "../../server/test/support/server.js"
import { aide, bin, home, root } from "./support/cli.js"

const hasTmux = spawnSync("tmux", ["-V"]).status === 0

describe("aide plugin new", () => {
  const user = home()
  afterAll(() => user.remove())

  it("writes a plugin whose own test passes as written", async () => {
    const made = await aide(["plugin", "new", "wordy", "--dir", user.dir, "--json"])
    expect(made.code).toBe(0)
    const folder = join(user.dir, "wordy")
    expect(JSON.parse(made.stdout)).toEqual({
      id: "wordy",
      folder,
      files: ["aide.plugin.json", "package.json", "src/tools.js", "test/wordy.test.ts", "README.md"],
    })
    expect(readFileSync(join(folder, "README.md"), "utf8")).toContain("aide plugin dev")
    // Installable by plain npm: the released versions of the workspace's packages, no `workspace:`.
    const versionOf = (name: string) => JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"))
    expect(JSON.parse(readFileSync(join(folder, "package.json"), "utf8")).devDependencies).toEqual({
      "@aide/plugin": `^${versionOf("plugin").version}`,
      "@aide/testing": `^${versionOf("testing").version}`,
      vitest: versionOf("testing").peerDependencies.vitest,
    })
    // What an install gives it: @aide/testing, @aide/plugin and vitest (linked in, as pnpm would).
    mkdirSync(join(folder, "node_modules", "@aide"), { recursive: true })
    symlinkSync(join(root, "packages/testing"), join(folder, "node_modules/@aide/testing"), "dir")
    symlinkSync(join(root, "packages/plugin"), join(folder, "node_modules/@aide/plugin"), "dir")
    symlinkSync(join(root, "node_modules/vitest"), join(folder, "node_modules/vitest"), "dir")
    const run = await promisify(execFile)(
      process.execPath,
      [join(root, "node_modules/vitest/vitest.mjs"), "run", "--reporter=verbose"],
      { cwd: folder, env: { ...process.env, CI: "true" }, timeout: 120_000 },
    ).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`the generated test failed:\n${error.stdout}\n${error.stderr}`)
    })
    expect(run.stdout).toContain("3 passed")
  }, 150_000)

  it("says how to test it where it is: npm outside a clone, pnpm under a clone's examples/", async () => {
    const outside = await aide(["plugin", "new", "loose"], { cwd: user.dir })
    expect(outside.code).toBe(0)
    expect(outside.stdout).toContain("Test it: cd loose && npm install && npm test\n")
    expect(readFileSync(join(user.dir, "loose", "README.md"), "utf8")).toContain("npm install\nnpm test\n")
    // A clone: a pnpm workspace whose packages include examples/*.
    const clone = join(user.dir, "clone")
    mkdirSync(join(clone, "examples"), { recursive: true })
    writeFileSync(join(clone, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n  - 'examples/*'\n")
    const inside = await aide(["plugin", "new", "linked", "--dir", "examples"], { cwd: clone })
    expect(inside.stdout).toContain("Test it: npx -y pnpm@10.20.0 install && npx vitest run examples/linked\n")
    const deeper = await aide(["plugin", "new", "deeper"], { cwd: join(clone, "examples") })
    expect(deeper.stdout).toContain("Test it: cd .. && npx -y pnpm@10.20.0 install && npx vitest run examples/deeper\n")
    expect(readFileSync(join(clone, "examples", "linked", "README.md"), "utf8")).toContain(
      "npx vitest run examples/linked",
    )
    // Beside the workspace's folders, not in one: npm again.
    const beside = await aide(["plugin", "new", "beside"], { cwd: clone })
    expect(beside.stdout).toContain("Test it: cd beside && npm install && npm test\n")
  })

  it("refuses an id the manifest would refuse, and an existing folder", async () => {
    expect((await aide(["plugin", "new", "Not An Id", "--dir", user.dir])).code).toBe(2)
    const again = await aide(["plugin", "new", "wordy", "--dir", user.dir])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("exists already")
  })
})

describe.skipIf(!hasTmux)("aide plugin dev in a terminal", () => {
  let server: TestServer
  const user = home()
  const socket = `aide-plugin-dev-${process.pid}`
  const tmux = (args: ReadonlyArray<string>) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" })
  beforeAll(async () => {
    server = await startServer()
    await setup(server)
    const login = await aide(["login", "--url", server.url, "--password-stdin"], {
      env: { AIDE_CLI_CONFIG: user.credentials },
      input: password,
    })
    expect(login.code).toBe(0)
    tmux(["new-session", "-d", "-s", "keeper", "sleep 3600"])
  })
  afterAll(async () => {
    spawnSync("tmux", ["-L", socket, "kill-server"])
    await server.close()
    user.remove()
  })

  it("enables the plugin, restarts it on each save with the new code, and Ctrl-C leaves", async () => {
    expect((await aide(["plugin", "new", "live", "--dir", user.dir])).code).toBe(0)
    const folder = join(user.dir, "live")
    const env = `AIDE_CLI_CONFIG='${user.credentials}' TERM=xterm-256color PATH='${process.env.PATH}'`
    tmux([
      "new-window",
      "-d",
      "-t",
      "keeper:3",
      `env ${env} '${process.execPath}' '${bin}' plugin dev '${folder}' --data-dir '${server.dataDir}'; echo "[exit $?]"; sleep 30`,
    ])
    const screen = () => tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", "keeper:3"])
    const waitFor = (text: string) =>
      eventually(() => (screen().includes(text) ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 }).catch(
        (error) => {
          throw new Error(`${error.message}; the screen:\n${screen()}`)
        },
      )
    // Not in the server's plugins folder yet: linked there, enabled, loaded.
    await waitFor("live loaded (started): live:count_words")
    expect(screen()).toContain(`linked ${join(server.dataDir, "plugins", "live")}`)

    // A save: the plugin restarts with the new code.
    const tools = join(folder, "src/tools.js")
    writeFileSync(
      tools,
      readFileSync(tools, "utf8").replace(
        "export default [countWords]",
        'export default [countWords, { ...countWords, id: "count_letters", name: "Count letters" }]',
      ),
    )
    await waitFor("live loaded (src/tools.js changed): live:count_words, live:count_letters")
    const token = (await request(`${server.url}/api/auth/login`, { body: { password } })).body.token
    const listed = await request(`${server.url}/api/plugins`, { token })
    const entry = listed.body.plugins.find((candidate: { id: string }) => candidate.id === "live")
    expect(entry.provides.tools.toolIds).toEqual(["live:count_words", "live:count_letters"])

    // A broken save is reported, with why; saved as editors (and sed -i) do, through a temporary
    // file renamed over the real one: the reason names the real file only.
    const temporary = join(folder, "src/sedh1nW3r")
    writeFileSync(temporary, "export default [{ id: 42 }]\n")
    renameSync(temporary, tools)
    await waitFor("live did not load (src/tools.js changed)")
    expect(screen()).not.toContain("sedh1nW3r")

    tmux(["send-keys", "-t", "keeper:3", "C-c"])
    await waitFor("[exit 0]")
  }, 90_000)
})
