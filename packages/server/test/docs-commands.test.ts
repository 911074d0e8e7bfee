/**
 * Every shell command of README.md and docs/ runs here as it is written, so none can rot
 * (issue 9, item 21). Each ```sh / ```bash block found must be named in `plans` below: a block
 * nobody planned for fails the first test. The server is started with the README's own start
 * command, the model is the fake OpenAI-compatible server behind the real `openai` provider, and
 * each block runs in bash with `set -euo pipefail` and a `curl` that fails on any HTTP error.
 *
 * The only rewrites: the README's `http://127.0.0.1:4111` becomes the test server's address,
 * `<runId>` / `<threadId>` placeholders become the ids of a run really paused on an approval, and
 * the one remote MCP URL (docs/tools.md's OAuth example) points at a closed loopback port, since
 * this machine may not contact other hosts.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { FakeModelServer } from "@aide/testing"
import { mcpStdioServerPath } from "@aide/testing/fixtures"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chunksOf, eventually } from "./support/chat.js"
import { ensureBuilt, root } from "./support/process.js"
import { request } from "./support/server.js"

interface ShellBlock {
  /** `README.md: <first command line>`: how `plans` names it. */
  readonly key: string
  readonly file: string
  readonly line: number
  readonly text: string
}

/** The ```sh / ```bash / ```shell blocks of a markdown file. */
const shellBlocks = (file: string): Array<ShellBlock> => {
  const lines = readFileSync(join(root, file), "utf8").split("\n")
  const blocks: Array<ShellBlock> = []
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[index]!)) continue
    const start = index + 1
    while (index + 1 < lines.length && !lines[index + 1]!.startsWith("```")) index++
    const text = lines.slice(start, index + 1).join("\n")
    const first = text.split("\n").find((line) => line.trim() !== "" && !line.trim().startsWith("#")) ?? ""
    blocks.push({ key: `${file}: ${first.trim()}`, file, line: start, text })
    index++
  }
  return blocks
}

const documents = [
  "README.md",
  "examples/README.md",
  "bench/README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
]
const blocks = documents.flatMap(shellBlocks)

const startCommand = "npx -y pnpm@10.20.0 install && npx -y pnpm@10.20.0 start"
const testCommand = "npx -y pnpm@10.20.0 install && npx -y pnpm@10.20.0 test"
const corsStart = "AIDE_CORS_ORIGINS=https://console.example.com npx -y pnpm@10.20.0 start"

type Plan =
  /** Run against the tour's server, in `order`, after `before` (which may give placeholder values). */
  | {
      readonly kind: "tour"
      readonly order: number
      readonly before?: "pausedRun" | "pausedRunCall1" | "dropEverything"
    }
  /** A start command: run by the tests that start servers with it. */
  | { readonly kind: "start" }
  /** The command of this very suite: CI runs it verbatim. */
  | { readonly kind: "ci" }
  /** Benchmarks (minutes of load each): syntax and the scripts they name are checked, not run. */
  | { readonly kind: "bench" }
  /** The `aide` command line's examples: run verbatim, in order, by packages/cli/test/docs.test.ts. */
  | { readonly kind: "cli" }

const plans: Record<string, Plan> = {
  [`README.md: ${startCommand}`]: { kind: "start" },
  [`README.md: ${testCommand}`]: { kind: "ci" },
  "README.md: API=http://127.0.0.1:4111": { kind: "tour", order: 1 },
  "README.md: curl -s -X PATCH $API/api/config -H \"authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\":
    { kind: "tour", order: 2 },
  "README.md: curl -s -X PATCH $API/api/config -H \"authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\ (2)":
    { kind: "tour", order: 3, before: "pausedRun" },
  "docs/chat.md: curl -N -X POST $API/api/chat -H \"authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\":
    { kind: "tour", order: 4 },
  "docs/scheduling.md: curl -X POST $API/api/schedule -H \"authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\":
    { kind: "tour", order: 5 },
  'docs/tools.md: curl -N -X POST "$API/api/chat/approve" -H "Authorization: Bearer $TOKEN" -H \'content-type: application/json\' \\':
    { kind: "tour", order: 6, before: "pausedRunCall1" },
  'docs/tools.md: curl -X PATCH "$API/api/config" -H "Authorization: Bearer $TOKEN" -H \'content-type: application/json\' -d \'{':
    { kind: "tour", order: 7 },
  'docs/tools.md: curl -s -X POST "$API/api/mcp-servers" -H "Authorization: Bearer $TOKEN" -H \'content-type: application/json\' \\':
    { kind: "tour", order: 8, before: "dropEverything" },
  'docs/tools.md: curl -X PATCH "$API/api/config" -H "Authorization: Bearer $TOKEN" -H \'content-type: application/json\' \\':
    { kind: "tour", order: 9 },
  'docs/operations.md: sqlite3 .aide/aide.db "SELECT rejected_at, reason, length(document) FROM config_rejected"': {
    kind: "tour",
    order: 10,
  },
  [`docs/configuration.md: ${corsStart}`]: { kind: "start" },
  "docs/memory.md: curl -s -X PATCH $API/api/config -H \"authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\":
    { kind: "tour", order: 11 },
  'docs/memory.md: curl -s $API/api/memory/record -H "authorization: Bearer $TOKEN"': { kind: "tour", order: 12 },
}

/** The README's quick tour with the `aide` command line (run by packages/cli/test/docs.test.ts). */
const cliTour = [
  'README.md: export PATH="$PWD/node_modules/.bin:$PATH"',
  'README.md: aide config set models.operator \'{"provider":"openai","model":"gpt-4.1-mini"}\'',
]

/** Blocks keyed uniquely: a second block with the same first line gets " (2)", and so on. */
const keyed = (() => {
  const seen = new Map<string, number>()
  return blocks.map((block) => {
    const count = (seen.get(block.key) ?? 0) + 1
    seen.set(block.key, count)
    return count === 1 ? block : { ...block, key: `${block.key} (${count})` }
  })
})()

/**
 * What to do with a block: its plan, or for bench/README.md (benchmarks only) the bench check, or
 * for docs/cli.md and the README's CLI quick tour the CLI's own docs test.
 */
const planOf = (block: ShellBlock): Plan | undefined =>
  plans[block.key] ??
  (block.file === "bench/README.md"
    ? { kind: "bench" }
    : block.file === "docs/cli.md" || cliTour.includes(block.key)
      ? { kind: "cli" }
      : undefined)

/** The environment of a spawned command: this suite's, without what would steer the server. */
const cleanEnv = (extra: Record<string, string>) => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^(PORT|HOST|DATABASE_URL|INIT_CWD|AIDE_.*|npm_.*|PNPM_.*|OPENAI_.*|ANTHROPIC_.*|GOOGLE_.*|VITEST.*)$/i.test(
          name,
        ),
    ),
  ),
  ...extra,
})

interface StartedByCommand {
  readonly url: string
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** Runs a documented start command in bash (from the repository root) until it logs `listening`. */
const startWith = async (command: string, env: Record<string, string>): Promise<StartedByCommand> => {
  const child: ChildProcess = spawn("bash", ["-c", command], {
    cwd: root,
    env: cleanEnv({ PORT: "0", HOST: "127.0.0.1", AIDE_LOG_FORMAT: "json", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: npx → pnpm → node, all stopped together.
    detached: true,
  })
  let output = ""
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8")
  }
  child.stdout!.on("data", collect)
  child.stderr!.on("data", collect)
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, "SIGTERM")
      const timer = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, "SIGKILL"), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
  try {
    const url = await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output}`)
        for (const line of output.split("\n")) {
          if (!line.startsWith("{")) continue
          const parsed = JSON.parse(line) as { message?: string; annotations?: { url?: string } }
          if (parsed.message === "listening") return parsed.annotations?.url
        }
        return undefined
      },
      { timeoutMs: 120_000 },
    )
    return { url: url!, output: () => output, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

const fixture = mcpStdioServerPath

describe("the shell commands of README.md and docs/", () => {
  it("are each planned for here (a new block must be added to this test)", () => {
    expect(keyed.length).toBeGreaterThan(10)
    const unplanned = keyed.filter((block) => planOf(block) === undefined)
    expect(unplanned.map((block) => `${block.file}:${block.line} → ${block.key}`)).toEqual([])
    const missing = [...Object.keys(plans), ...cliTour].filter((key) => !keyed.some((block) => block.key === key))
    expect(missing).toEqual([])
  })

  it("include the suite's own command, which CI runs verbatim", () => {
    const block = keyed.find((candidate) => planOf(candidate)?.kind === "ci")!
    expect(block.text.trim()).toBe(testCommand)
    expect(readFileSync(join(root, ".ci/run"), "utf8")).toContain(testCommand)
  })

  it("of the benchmarks are valid bash and name scripts that exist and parse", async () => {
    const bench = keyed.filter((block) => planOf(block)?.kind === "bench")
    expect(bench.length).toBeGreaterThan(0)
    const scripts = new Set<string>()
    for (const block of bench) {
      await promisify(execFile)("bash", ["-n", "-c", block.text])
      for (const script of block.text.match(/bench\/[\w-]+\.mjs/g) ?? []) {
        expect(existsSync(join(root, script)), `${block.file}:${block.line} names ${script}`).toBe(true)
        scripts.add(script)
      }
    }
    // Each script once, side by side: one `node --check` a mention, in turn, outgrew the timeout
    // on a loaded machine as the benchmarks grew.
    await Promise.all(
      [...scripts].map((script) => promisify(execFile)(process.execPath, ["--check", join(root, script)])),
    )
  }, 60_000)

  describe("run against a server started with the README's start command", () => {
    let model: FakeModelServer
    let server: StartedByCommand
    let workDir: string
    const state = () => join(workDir, "shell-state")

    beforeAll(async () => {
      await ensureBuilt()
      model = await FakeModelServer.start()
      workDir = mkdtempSync(join(tmpdir(), "aide-docs-"))
      server = await startWith(startCommand, {
        AIDE_DATA_DIR: join(workDir, ".aide"),
        OPENAI_API_KEY: "docs-test-key",
        OPENAI_BASE_URL: model.url,
      })
    }, 180_000)
    afterAll(async () => {
      await server?.stop()
      await model?.close()
      if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true })
    })

    /** The token the tour holds now (its `TOKEN`, as the state file has it). */
    const tourToken = () => {
      const match = /^declare -x TOKEN="([^"]+)"$/m.exec(readFileSync(state(), "utf8"))
      if (match === null) throw new Error("the tour has no TOKEN yet")
      return match[1]!
    }

    let fixtureReady = false
    /** A chat that pauses on a tool call of a local MCP server: its run and thread ids. */
    const pausedRun = async (toolCallId: string) => {
      const token = tourToken()
      if (!fixtureReady) {
        const patched = await request(`${server.url}/api/config`, {
          method: "PATCH",
          token,
          body: { mcpServers: { docsfixture: { command: process.execPath, args: [fixture] } } },
        })
        expect(patched.status).toBe(200)
        await eventually(
          async () => {
            const { body } = await request(`${server.url}/api/mcp-servers`, { token })
            return body.servers.some((entry: any) => entry.id === "docsfixture" && entry.tools.length > 0) || undefined
          },
          { timeoutMs: 20_000 },
        )
        fixtureReady = true
      }
      model.script({
        toolCalls: [{ id: toolCallId, name: "docsfixture_echo", arguments: { text: "from the docs test" } }],
        match: (recorded) =>
          recorded.body.tools?.some((tool) => tool.function.name === "docsfixture_echo") === true &&
          JSON.stringify(recorded.body.messages.at(-1)).includes("docs approval"),
      })
      const response = await fetch(`${server.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ parts: [{ type: "text", text: "docs approval, please" }] }),
      })
      const chunks = chunksOf(await response.text())
      expect(chunks.map((chunk) => chunk.type)).toContain("tool-approval-request")
      return {
        runId: String(chunks.find((chunk) => chunk.type === "start").messageMetadata.runId),
        threadId: response.headers.get("x-thread-id")!,
      }
    }

    /** Runs one block in bash, carrying the variables it sets to the next block. */
    const runBlock = async (block: ShellBlock, replacements: Record<string, string>) => {
      let text = block.text.replaceAll("http://127.0.0.1:4111", server.url)
      for (const [from, to] of Object.entries(replacements)) text = text.replaceAll(from, to)
      const script = [
        "set -euo pipefail",
        `[ -f ${state()} ] && source ${state()}`,
        "set -a",
        // Any HTTP error fails the block, as it would stop a reader.
        'curl() { command curl --fail-with-body --show-error --max-time 60 "$@"; }',
        text,
        `export -p > ${state()}`,
      ].join("\n")
      try {
        return await promisify(execFile)("bash", ["-c", script], {
          cwd: workDir,
          env: cleanEnv({}),
          timeout: 90_000,
          maxBuffer: 16 * 1024 * 1024,
        })
      } catch (error) {
        const failure = error as { stdout?: string; stderr?: string; message: string }
        throw new Error(
          `${block.file}:${block.line} failed: ${failure.message}\n--- stdout\n${failure.stdout}\n--- stderr\n${failure.stderr}\n--- server\n${server.output().slice(-4_000)}`,
        )
      }
    }

    const tour = keyed
      .flatMap((block) => {
        const plan = planOf(block)
        return plan?.kind === "tour" ? [{ block, plan }] : []
      })
      .sort((a, b) => a.plan.order - b.plan.order)

    it("every command of the tour runs and answers success", async () => {
      expect(tour.length).toBeGreaterThanOrEqual(9)
      for (const { block, plan } of tour) {
        const replacements: Record<string, string> = { "https://mcp.linear.app/mcp": "http://127.0.0.1:9/mcp" }
        if (plan.before === "pausedRun" || plan.before === "pausedRunCall1") {
          const paused = await pausedRun(plan.before === "pausedRunCall1" ? "call_1" : "docs_call_a")
          replacements["<runId>"] = paused.runId
          replacements["<threadId>"] = paused.threadId
        }
        if (plan.before === "dropEverything") {
          const dropped = await request(`${server.url}/api/config`, {
            method: "PATCH",
            token: tourToken(),
            body: { mcpServers: { everything: null } },
          })
          expect(dropped.status).toBe(200)
        }
        const { stdout } = await runBlock(block, replacements)
        // What the reader sees: a few facts per block that prove the commands did their work.
        if (plan.order === 1) expect(stdout).toContain('"refreshToken"')
        if (plan.order === 2) expect(stdout).toContain('"delta":"model."')
        if (plan.order === 3) expect(stdout).toContain('"type":"tool-output-available"')
        if (plan.order === 6) expect(stdout).toContain('"toolCallId":"call_1"')
      }
      // The README's scheduled task, docs/scheduling.md's, and the MCP servers the docs added.
      const token = tourToken()
      const schedule = await request(`${server.url}/api/schedule`, { token })
      expect(schedule.body.tasks.map((task: { name: string }) => task.name)).toEqual([
        "Morning digest",
        "Morning digest",
      ])
      const servers = await request(`${server.url}/api/mcp-servers`, { token })
      expect(servers.body.servers.map((entry: { id: string }) => entry.id).sort()).toEqual(
        ["docsfixture", "everything", "github", "linear"].sort(),
      )
    }, 300_000)
  })

  it("docs/configuration.md's CORS start command starts a server that answers that origin's preflight", async () => {
    await ensureBuilt()
    const dataDir = mkdtempSync(join(tmpdir(), "aide-docs-cors-"))
    const server = await startWith(corsStart, { AIDE_DATA_DIR: dataDir })
    try {
      const preflight = await fetch(`${server.url}/api/auth/sessions`, {
        method: "OPTIONS",
        headers: {
          origin: "https://console.example.com",
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization",
        },
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get("access-control-allow-origin")).toBe("https://console.example.com")
    } finally {
      await server.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
