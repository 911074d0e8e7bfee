import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import * as Credentials from "../Credentials.js"
import { dataDirFor, isLocal } from "../LocalServers.js"
import { bold, dim, print, printJson } from "../Output.js"
import { printable } from "../Printable.js"
import { connect } from "../Session.js"
import { type Check, dataDirChecks, markOf, ownerCheck, portCheck, skipped } from "./LocalChecks.js"

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
      skipped(
        "server",
        `not logged in to ${server}: the model, MCP servers and plugins were not checked`,
        `aide login --url ${server}`,
      ),
    ]
  }
  try {
    const [config, providers, mcp, plugins] = await Promise.all([
      client.config.get() as Promise<{ models?: { operator?: { provider: string; model: string } | null } }>,
      client.models.list(),
      client.mcpServers.list(),
      client.plugins.list(),
    ])
    const checks: Array<Check> = [{ name: "server", ok: true, detail: `${server} answers; logged in` }]
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

Checks the server \`aide login\` chose (or --url) and its data directory: --data-dir, else
AIDE_DATA_DIR, else the one \`aide start\` recorded for that server, else ./.aide. Both are
printed first. Each check prints ✓ (passed), ✗ (failed, with the fix) or – (not run, with what
would run it). Exit 1 when any check fails; a check not run is not a failure.
  data directory   exists, private to its user (0700)
  database         SQLite file private (0600), readable, migrated to this version
  providers        the operator model's provider is configured (from the server when logged in,
                   else a provider variable in this shell's environment)
  MCP / plugins    each enabled one healthy (from the server; needs aide login)
  port             the server's port (--port, else PORT, else the logged-in URL's, else 4111) is
                   free, or held by a running Aide server`,
  run: async (argv) => {
    const { values } = parse(argv, { port: { type: "string" } })
    const server = Credentials.serverUrl(values.url)
    const local = isLocal(server)
    const dataDir = dataDirFor(values["data-dir"], server)
    // The port checked is the logged-in server's, when it is on this machine.
    const host = process.env.HOST ?? (local ? new URL(server).hostname.replace(/^\[|\]$/g, "") : "127.0.0.1")
    const port = Number(values.port ?? process.env.PORT ?? (local ? new URL(server).port || 80 : 4111))
    const owner = local && dataDir.local ? await ownerCheck(dataDir.dir, server) : undefined
    const checks = [
      ...(owner === undefined ? [] : [owner]),
      ...(dataDir.local
        ? dataDirChecks(dataDir.dir)
        : [
            skipped(
              "data directory",
              `${server} is on another machine: its data directory and database were not checked`,
              "run aide doctor on that machine, or pass --data-dir for a data directory on this one",
            ),
          ]),
      ...(await serverChecks(values.url)),
      ...(local || values.port !== undefined || process.env.PORT !== undefined
        ? [await portCheck(host, port)]
        : [
            skipped(
              "port",
              `${server} is on another machine: no local port checked`,
              "run aide doctor on that machine",
            ),
          ]),
    ]
    const failed = checks.filter((check) => !check.ok && check.skipped !== true).length
    const notRun = checks.filter((check) => check.skipped === true).length
    if (values.json)
      printJson({ ok: failed === 0, server, dataDir: { path: dataDir.dir, source: dataDir.source }, checks })
    else {
      print(dim(`server ${server}${Credentials.load(server) === undefined ? " (not logged in)" : ""}`))
      print(dim(`data directory ${dataDir.dir} (${dataDir.source})`))
      for (const check of checks) {
        // Plugin ids and problems, MCP errors: relayed words of others, printable only.
        print(`${markOf(check)} ${printable(check.name)}: ${printable(check.detail)}`)
        if (!check.ok && check.fix) print(`  ${dim(check.skipped ? "to check it:" : "fix:")} ${printable(check.fix)}`)
      }
      const summary =
        failed === 0
          ? `all checks passed${notRun === 0 ? "" : ` (${notRun} not run)`}`
          : `${failed} check${failed === 1 ? "" : "s"} failed${notRun === 0 ? "" : `, ${notRun} not run`}`
      print(bold(summary))
    }
    return failed === 0 ? 0 : 1
  },
}
