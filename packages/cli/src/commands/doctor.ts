import { existsSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import * as Credentials from "../Credentials.js"
import { dim, green, print, printJson, red } from "../Output.js"
import { dataDirOf } from "../Paths.js"
import { connect } from "../Session.js"
import { latestMigration, openDatabase } from "../Sqlite.js"

interface Check {
  readonly name: string
  readonly ok: boolean
  readonly detail: string
  /** What to do about a failed check. */
  readonly fix?: string
}

const modeOf = (path: string) => statSync(path).mode & 0o777
const octal = (mode: number) => mode.toString(8).padStart(3, "0")

/** The environment variables that configure a provider on their own (docs/configuration.md, "AI providers"). */
const providerVariables = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "OPENAI_COMPATIBLE_BASE_URL",
  "OPENROUTER_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "MISTRAL_API_KEY",
  "XAI_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "CEREBRAS_API_KEY",
  "PERPLEXITY_API_KEY",
  "DEEPINFRA_API_KEY",
  "NVIDIA_API_KEY",
  "HF_TOKEN",
  "OLLAMA_BASE_URL",
  "LMSTUDIO_BASE_URL",
  "VLLM_BASE_URL",
  "LLAMACPP_BASE_URL",
]

const dataDirChecks = (dataDir: string): Array<Check> => {
  if (!existsSync(dataDir))
    return [
      {
        name: "data directory",
        ok: false,
        detail: `${dataDir} does not exist`,
        fix: "start the server once (aide start), or point AIDE_DATA_DIR / --data-dir at it",
      },
    ]
  const checks: Array<Check> = []
  const mode = modeOf(dataDir)
  checks.push(
    (mode & 0o077) === 0
      ? { name: "data directory", ok: true, detail: `${dataDir} (mode ${octal(mode)})` }
      : {
          name: "data directory",
          ok: false,
          detail: `${dataDir} is open to other users (mode ${octal(mode)})`,
          fix: `chmod 700 ${dataDir} && chmod 600 ${dataDir}/*`,
        },
  )
  if (process.env.DATABASE_URL) {
    checks.push({ name: "database", ok: true, detail: "PostgreSQL (DATABASE_URL): migrated by the server at start" })
    return checks
  }
  const database = join(dataDir, "aide.db")
  if (!existsSync(database)) {
    checks.push({ name: "database", ok: false, detail: `no ${database}`, fix: "start the server once (aide start)" })
    return checks
  }
  const dbMode = modeOf(database)
  if ((dbMode & 0o077) !== 0)
    checks.push({
      name: "database rights",
      ok: false,
      detail: `${database} is readable by other users (mode ${octal(dbMode)})`,
      fix: `chmod 600 ${dataDir}/*`,
    })
  try {
    const db = openDatabase(database, { readonly: true, fileMustExist: true, timeout: 2_000 })
    try {
      const { id } = db.prepare("SELECT max(migration_id) AS id FROM aide_migrations").get() as { id: number | null }
      checks.push(
        id === latestMigration
          ? { name: "database", ok: true, detail: `${database} reachable, migrated (${id})` }
          : id !== null && id > latestMigration
            ? {
                name: "database",
                ok: false,
                detail: `migrated by a newer Aide (${id} > ${latestMigration})`,
                fix: "upgrade this Aide",
              }
            : {
                name: "database",
                ok: false,
                detail: `not fully migrated (${id ?? "none"} of ${latestMigration})`,
                fix: "start the server (aide start): it migrates at start",
              },
      )
    } finally {
      db.close()
    }
  } catch (error) {
    checks.push({
      name: "database",
      ok: false,
      detail: `cannot read ${database}: ${error instanceof Error ? error.message : String(error)}`,
      fix: "check the file's owner and rights, or restore a backup (aide restore)",
    })
  }
  return checks
}

/** Whether `port` can be bound on `host`; when it cannot, whether an Aide server answers there. */
const portCheck = async (host: string, port: number): Promise<Check> => {
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, host, () => server.close(() => resolve(true)))
  })
  if (free) return { name: "port", ok: true, detail: `${host}:${port} is free` }
  const aide = await fetch(`http://${host}:${port}/`, { signal: AbortSignal.timeout(2_000) })
    .then(async (response) => ((await response.json()) as { name?: string }).name === "aide")
    .catch(() => false)
  return aide
    ? { name: "port", ok: true, detail: `${host}:${port} is taken by a running Aide server` }
    : {
        name: "port",
        ok: false,
        detail: `${host}:${port} is taken by another program`,
        fix: `stop it, or start Aide on another port (PORT=4112 aide start)`,
      }
}

/** What the running server reports: the operator model's provider, MCP servers, plugins. */
const serverChecks = async (url: string | undefined): Promise<Array<Check>> => {
  const { url: server, client } = connect(url)
  if (Credentials.load(server) === undefined) {
    const configured = providerVariables.filter((name) => process.env[name])
    return [
      configured.length > 0
        ? { name: "providers", ok: true, detail: `set in this shell: ${configured.join(", ")}` }
        : {
            name: "providers",
            ok: false,
            detail: "no provider key or URL in this shell's environment",
            fix: "set one before starting the server, e.g. export OPENAI_API_KEY=… (docs/configuration.md#ai-providers)",
          },
      {
        name: "server",
        ok: true,
        detail: `not logged in to ${server}: MCP servers and plugins not checked (aide login)`,
      },
    ]
  }
  try {
    const [config, providers, mcp, plugins] = await Promise.all([
      client.config.get() as Promise<{ models?: { operator?: { provider: string; model: string } | null } }>,
      client.models.list(),
      client.mcpServers.list(),
      client.plugins.list(),
    ])
    const checks: Array<Check> = []
    const operator = config.models?.operator
    const provider = providers.find((candidate) => candidate.id === operator?.provider)
    checks.push(
      operator == null
        ? {
            name: "providers",
            ok: false,
            detail: "no operator model chosen",
            fix: 'aide config set models.operator \'{"provider":"openai","model":"gpt-4.1-mini"}\'',
          }
        : provider?.configured === true
          ? { name: "providers", ok: true, detail: `${operator.provider}/${operator.model} configured` }
          : {
              name: "providers",
              ok: false,
              detail: `${operator.provider} is not configured on the server`,
              fix: `set ${(provider?.envVars ?? []).join(" or ") || "its key"} in the server's environment and restart it`,
            },
    )
    for (const entry of mcp) {
      if (!entry.enabled) continue
      checks.push(
        entry.error == null && entry.authUrl === undefined
          ? { name: `MCP ${entry.id}`, ok: true, detail: `${entry.tools.length} tools` }
          : {
              name: `MCP ${entry.id}`,
              ok: false,
              detail: entry.error ?? "waiting for OAuth authorization",
              fix: entry.authUrl
                ? `authorize at ${entry.authUrl}`
                : `fix mcpServers.${entry.id} (aide config get mcpServers.${entry.id})`,
            },
      )
    }
    for (const entry of plugins) {
      if (!entry.enabled) continue
      checks.push(
        entry.validationErrors.length === 0 && entry.envConfigured
          ? { name: `plugin ${entry.id}`, ok: true, detail: "enabled" }
          : {
              name: `plugin ${entry.id}`,
              ok: false,
              detail: [
                ...entry.validationErrors,
                ...(entry.envConfigured ? [] : ["a required environment variable is missing"]),
              ].join("; "),
              fix: `aide plugin list shows what plugins.${entry.id} needs`,
            },
      )
    }
    return checks
  } catch (error) {
    const status = (error as { status?: number }).status
    return [
      {
        name: "server",
        ok: false,
        detail:
          status === 401 ? `the session on ${server} ended` : `${server} did not answer (${(error as Error).message})`,
        fix: status === 401 ? "aide login" : "start it (aide start) or check --url",
      },
    ]
  }
}

export const doctor: Command = {
  name: "doctor",
  summary: "check the install: data directory, database, providers, MCP servers, plugins, port",
  usage: `aide doctor [--data-dir <dir>] [--url <url>] [--port <port>] [--json]

Each check prints ✓ or ✗, and for ✗ the fix. Exit 1 when any check fails.
  data directory   exists, private to its user (0700)
  database         SQLite file private (0600), readable, migrated to this version
  providers        the operator model's provider is configured (from the server when logged in,
                   else a provider variable in this shell's environment)
  MCP / plugins    each enabled one healthy (from the server; needs aide login)
  port             PORT (default 4111) on HOST is free, or held by a running Aide server`,
  run: async (argv) => {
    const { values } = parse(argv, { port: { type: "string" } })
    const host = process.env.HOST ?? "127.0.0.1"
    const port = Number(values.port ?? process.env.PORT ?? 4111)
    const checks = [
      ...dataDirChecks(dataDirOf(values["data-dir"])),
      ...(await serverChecks(values.url)),
      await portCheck(host, port),
    ]
    const failed = checks.filter((check) => !check.ok).length
    if (values.json) printJson({ ok: failed === 0, checks })
    else {
      for (const check of checks) {
        print(`${check.ok ? green("✓") : red("✗")} ${check.name}: ${check.detail}`)
        if (!check.ok && check.fix) print(`  ${dim("fix:")} ${check.fix}`)
      }
      print(failed === 0 ? green("all checks passed") : red(`${failed} check${failed === 1 ? "" : "s"} failed`))
    }
    return failed === 0 ? 0 : 1
  },
}
