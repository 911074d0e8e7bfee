import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import * as Credentials from "../Credentials.js"
import { dim, green, print, printJson, red } from "../Output.js"
import { dataDirOf } from "../Paths.js"
import { connect } from "../Session.js"
import { type Check, dataDirChecks, portCheck } from "./LocalChecks.js"

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
