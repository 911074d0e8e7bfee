/**
 * `aide chat` in a real terminal: tmux runs it, `send-keys` types, `capture-pane` reads the
 * screen. Skipped with a notice where tmux is missing (CI installs it, see .ci/run).
 */
import { execFileSync, spawnSync } from "node:child_process"
import { approvalProbe } from "@aide/testing/fixtures"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, eventually, startChatServer } from "../../server/test/support/chat.js"
import { password, startServer } from "../../server/test/support/server.js"
import { aide, bin, cliEnv, home } from "./support/cli.js"

const hasTmux = spawnSync("tmux", ["-V"]).status === 0
if (!hasTmux) console.warn("[cli] tmux is not installed: the terminal tests of aide chat are skipped")

/**
 * This suite's own tmux server (its own socket), kept up by a session that outlives the tests:
 * when the last session of a tmux server closes, the server exits, and a `new-session` racing
 * with that exit fails with "server exited unexpectedly".
 */
const socket = `aide-cli-test-${process.pid}`
const tmux = (args: ReadonlyArray<string>, options: { readonly encoding?: "utf8" } = {}) =>
  execFileSync("tmux", ["-L", socket, ...args], options)
if (hasTmux) {
  beforeAll(() => void tmux(["new-session", "-d", "-s", "keeper", "sleep 3600"]))
  afterAll(() => void spawnSync("tmux", ["-L", socket, "kill-server"]))
}

/** One tmux session running one command, 120×40, with helpers to type and to read the screen. */
const terminal = (name: string, command: ReadonlyArray<string>, env: Record<string, string>) => {
  const session = `aide-cli-${name}-${process.pid}`
  const quoted = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ")
  const exports = Object.entries(env)
    .map(([key, value]) => `${key}='${value.replaceAll("'", "'\\''")}'`)
    .join(" ")
  tmux([
    "new-session",
    "-d",
    "-s",
    session,
    "-x",
    "120",
    "-y",
    "40",
    `env ${exports} ${quoted}; echo "[exit $?]"; sleep 30`,
  ])
  const screen = () => tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", session], { encoding: "utf8" }) as string
  return {
    screen,
    type: (text: string) => tmux(["send-keys", "-t", session, "-l", text]),
    key: (key: string) => tmux(["send-keys", "-t", session, key]),
    /** Waits until the screen matches; returns it. */
    waitFor: (pattern: RegExp | string, timeoutMs = 10_000) =>
      eventually(
        () => {
          const text = screen()
          return (typeof pattern === "string" ? text.includes(pattern) : pattern.test(text)) ? text : undefined
        },
        { timeoutMs, intervalMs: 50 },
      ).catch((error) => {
        throw new Error(`${error.message}; the screen:\n${screen()}`)
      }),
    close: () => spawnSync("tmux", ["-L", socket, "kill-session", "-t", session]),
  }
}

describe.skipIf(!hasTmux)("aide setup in a terminal", () => {
  it("asks for the password twice without showing it, and refuses two different ones", async () => {
    const server = await startServer()
    const user = home()
    const env = { AIDE_CLI_CONFIG: user.credentials, TERM: "xterm-256color", PATH: process.env.PATH ?? "" }
    try {
      const differ = terminal("setup-differ", [process.execPath, bin, "setup", "--url", server.url], env)
      try {
        await differ.waitFor("New password:")
        // Too short: refused at once, before "Again:", and asked for again.
        differ.type("short")
        differ.key("Enter")
        const short = await differ.waitFor("at least 8 characters; try again")
        expect(short).not.toContain("Again:")
        await differ.waitFor(/try again\s*\n\s*New password:/)
        // Two that differ: said so, and asked for again.
        differ.type("first secret one")
        differ.key("Enter")
        await differ.waitFor("Again:")
        differ.type("second secret two")
        differ.key("Enter")
        await differ.waitFor(/differ; try again\s*\n\s*New password:/)
        // A third failure ends it: exit 1, not a usage error.
        differ.type("third secret three")
        differ.key("Enter")
        await differ.waitFor(/Again:[\s\S]*Again:/)
        differ.type("fourth secret four")
        differ.key("Enter")
        const screen = await differ.waitFor("[exit 1]")
        expect(screen).toContain("the two passwords differ; nothing was changed")
        expect(screen).not.toContain("Usage")
        expect(screen).not.toContain("secret")
      } finally {
        differ.close()
      }
      const same = terminal("setup-same", [process.execPath, bin, "setup", "--url", server.url], env)
      try {
        await same.waitFor("New password:")
        same.type(password)
        same.key("Enter")
        await same.waitFor("Again:")
        same.type(password)
        same.key("Enter")
        const screen = await same.waitFor("[exit 0]")
        expect(screen).toContain("password set on")
        expect(screen).not.toContain(password)
      } finally {
        same.close()
      }
    } finally {
      await server.close()
      user.remove()
    }
  })
})

describe.skipIf(!hasTmux)("aide chat in a terminal", () => {
  let server: ChatTestServer
  const tool = approvalProbe()
  const user = home()
  let env: Record<string, string>
  beforeAll(async () => {
    server = await startChatServer({ kernel: { tools: tool.tools } })
    env = { AIDE_CLI_CONFIG: user.credentials, TERM: "xterm-256color" }
    const login = await aide(["login", "--url", server.url, "--password-stdin"], { env, input: password })
    expect(login.code).toBe(0)
    env = Object.fromEntries(
      Object.entries({ ...cliEnv(env), PATH: process.env.PATH ?? "" }).filter(([key]) =>
        /^(AIDE_CLI_CONFIG|TERM|PATH|HOME)$/.test(key),
      ),
    )
  })
  afterAll(async () => {
    await server.close()
    user.remove()
  })

  it("streams the answer as it comes", async () => {
    server.model.script({ text: ["The ", "quick ", "brown ", "fox."], chunkDelayMs: 150 })
    const term = terminal("stream", [process.execPath, bin, "chat"], env)
    try {
      await term.waitFor("you›")
      term.type("Tell me about foxes")
      term.key("Enter")
      // Part of the answer is on screen before the rest has come: it streams.
      const partial = await term.waitFor("aide› The ")
      expect(partial).not.toContain("fox.")
      await term.waitFor("aide› The quick brown fox.")
      await term.waitFor(/fox\.\s*\n.*you›/)
    } finally {
      term.close()
    }
  })

  it("shows a tool call and asks for approval; y runs the tool and the answer follows", async () => {
    server.model.script(
      { toolCalls: [{ id: "call_1", name: "probe_delete_file", arguments: { path: "/tmp/old.txt" } }] },
      { text: "Deleted /tmp/old.txt." },
    )
    const term = terminal("approve", [process.execPath, bin, "chat"], env)
    try {
      await term.waitFor("you›")
      term.type("Delete /tmp/old.txt")
      term.key("Enter")
      const asked = await term.waitFor("[y]es / [n]o, one key")
      expect(asked).toContain("⚙ probe_delete_file")
      expect(asked).toContain("/tmp/old.txt")
      expect(tool.executions).toEqual([])
      // Other text typed (ahead, or pasted) is not a decision: the question is asked again.
      term.type("ok sure")
      await eventually(() => ((term.screen().match(/one key/g)?.length ?? 0) >= 2 ? true : undefined))
      expect(tool.executions).toEqual([])
      // One key, no Enter.
      term.type("y")
      await term.waitFor("aide› Deleted /tmp/old.txt.")
      expect(tool.executions).toEqual([{ path: "/tmp/old.txt" }])
    } finally {
      term.close()
    }
  })

  it("Ctrl-C stops waiting and offers to resume: r picks the answer up where it was", async () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index} `)
    server.model.script({ text: words, chunkDelayMs: 100 })
    const term = terminal("resume", [process.execPath, bin, "chat"], env)
    try {
      await term.waitFor("you›")
      term.type("Count")
      term.key("Enter")
      await term.waitFor("w3 ")
      term.key("C-c")
      await term.waitFor("[r]esume, [s]top it, or [q]uit?")
      // One key, no Enter.
      term.type("r")
      const done = await term.waitFor(/w39\s*\n.*you›/, 15_000)
      // Nothing was shown twice: the resumed stream skips what was on screen already.
      expect(done.match(/w1 /g)).toHaveLength(1)
    } finally {
      term.close()
    }
  })

  it("r after the answer finished while the question was open prints the rest of it", async () => {
    server.model.script({ text: Array.from({ length: 12 }, (_, index) => `f${index} `), chunkDelayMs: 100 })
    const term = terminal("finished", [process.execPath, bin, "chat"], env)
    try {
      await term.waitFor("you›")
      term.type("Count to twelve")
      term.key("Enter")
      await term.waitFor("f2 ")
      term.key("C-c")
      await term.waitFor("[r]esume, [s]top it, or [q]uit?")
      // The run ends on the server while the question is open.
      await eventually(
        async () => {
          const listed = await aide(["threads", "--json"], { env })
          return JSON.parse(listed.stdout).activeStreamIds.length === 0 ? true : undefined
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      )
      term.type("r")
      const done = await term.waitFor(/f11\s*\n.*you›/)
      // Every word once: the rest follows what was on screen, nothing is repeated.
      for (let index = 0; index < 12; index++) expect(done.match(new RegExp(`f${index} `, "g"))).toHaveLength(1)
    } finally {
      term.close()
    }
  })

  it("the question takes one key; anything else asks again and never leaves the run going", async () => {
    server.model.script({ text: Array.from({ length: 80 }, (_, index) => `k${index} `), chunkDelayMs: 100 })
    const term = terminal("keys", [process.execPath, bin, "chat"], env)
    try {
      await term.waitFor("you›")
      term.type("Count a lot")
      term.key("Enter")
      await term.waitFor("k2 ")
      term.key("C-c")
      await term.waitFor("[r]esume, [s]top it, or [q]uit?")
      term.type("x")
      await term.waitFor(/(\[q\]uit\?[\s\S]*){2}/)
      // Text typed as a message (several characters at once) is not an answer either.
      term.type("s please")
      await term.waitFor(/(\[q\]uit\?[\s\S]*){3}/)
      expect(term.screen()).not.toContain("left running")
      term.type("s")
      await term.waitFor(/stopped\s*\n.*you›/)
      const listed = await aide(["threads", "--json"], { env })
      expect(JSON.parse(listed.stdout).activeStreamIds).toEqual([])
    } finally {
      term.close()
    }
  })

  it("Ctrl-C then s stops the run on the server", async () => {
    server.model.script({ text: Array.from({ length: 60 }, (_, index) => `s${index} `), chunkDelayMs: 100 })
    const term = terminal("stop", [process.execPath, bin, "chat"], env)
    try {
      await term.waitFor("you›")
      term.type("Count slowly")
      term.key("Enter")
      await term.waitFor("s2 ")
      term.key("C-c")
      await term.waitFor("[r]esume")
      term.type("s")
      await term.waitFor(/stopped\s*\n.*you›/)
      const listed = await aide(["threads", "--json"], { env })
      expect(JSON.parse(listed.stdout).activeStreamIds).toEqual([])
    } finally {
      term.close()
    }
  })

  it("aide doctor on a terminal: a check that did not run is –, not ✓; threads show local times", async () => {
    const nobody = { ...env, AIDE_CLI_CONFIG: `${user.dir}/nobody.json` }
    const doctor = terminal("doctor", [process.execPath, bin, "doctor", "--url", server.url], nobody)
    try {
      const screen = await doctor.waitFor(/\[exit \d\]/)
      expect(screen).toContain(`server ${server.url} (not logged in)`)
      expect(screen).toMatch(/^– server: not logged in to /m)
      expect(screen).toContain(`to check it: aide login --url ${server.url}`)
      expect(screen).not.toContain("✓ server")
    } finally {
      doctor.close()
    }
    const threads = terminal("threads", [process.execPath, bin, "threads"], env)
    try {
      const screen = await threads.waitFor("[exit 0]")
      expect(screen).toMatch(/ {2}(just now|\d+ min ago) /)
      expect(screen).not.toMatch(/\d{4}-\d\d-\d\dT\d/)
    } finally {
      threads.close()
    }
  })

  it("Ctrl-C or Ctrl-D at the prompt leaves the chat with exit 0", async () => {
    for (const key of ["C-c", "C-d"]) {
      const term = terminal(`leave-${key}`, [process.execPath, bin, "chat"], env)
      try {
        await term.waitFor("you›")
        term.key(key)
        await term.waitFor("[exit 0]")
      } finally {
        term.close()
      }
    }
  })

  it("Ctrl-C then q leaves the answer running; aide chat --thread <id> resumes it", async () => {
    const words = Array.from({ length: 30 }, (_, index) => `v${index} `)
    server.model.script({ text: words, chunkDelayMs: 100 })
    const first = terminal("leave", [process.execPath, bin, "chat"], env)
    let threadId: string
    try {
      await first.waitFor("you›")
      first.type("Count again")
      first.key("Enter")
      await first.waitFor("v2 ")
      first.key("C-c")
      await first.waitFor("[r]esume")
      first.type("q")
      const left = await first.waitFor(/continue with: aide chat --thread (\S+)/)
      threadId = /continue with: aide chat --thread (\S+)/.exec(left)![1]!
    } finally {
      first.close()
    }
    const second = terminal("rejoin", [process.execPath, bin, "chat", "--thread", threadId], env)
    try {
      await second.waitFor(/v29\s*\n.*you›/, 15_000)
    } finally {
      second.close()
    }
  })
})
