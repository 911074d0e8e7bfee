import type { Command } from "./Command.js"
import { login, logout, setup } from "./commands/auth.js"
import { backup, restore } from "./commands/backup.js"
import { chat } from "./commands/chat.js"
import { config, inbox, threads } from "./commands/data.js"
import { doctor } from "./commands/doctor.js"
import { mcp } from "./commands/mcp.js"
import { plugin } from "./commands/plugin.js"
import { start } from "./commands/start.js"
import { AuthError, bold, ExitCode, Failure, print, printError, UsageError } from "./Output.js"

const commands: ReadonlyArray<Command> = [
  start,
  setup,
  login,
  logout,
  doctor,
  chat,
  threads,
  inbox,
  config,
  mcp,
  plugin,
  backup,
  restore,
]

const help = () => `${bold("aide")} — the Aide command line

Usage: aide <command> [options]     (aide <command> --help for its options)

Commands:
${commands.map((command) => `  ${command.name.padEnd(16)}${command.summary}`).join("\n")}

Options of every command:
  --url <url>        the server (default: $AIDE_URL, else the one \`aide login\` stored, else
                     http://127.0.0.1:4111)
  --json             machine-readable output, where the output is data
  -h, --help         this help, or a command's

Exit codes: 0 ok, 1 failure, 2 usage error, 3 not logged in (or the session ended).
Colours only on a terminal (NO_COLOR turns them off). Documentation: docs/cli.md`

/** Runs one command line; resolves with the exit code. */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [name, ...rest] = argv
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    print(help())
    return name === undefined ? ExitCode.usage : ExitCode.ok
  }
  if (name === "--version") {
    print("0.1.0")
    return ExitCode.ok
  }
  const command = commands.find((candidate) => candidate.name === name)
  if (command === undefined) {
    printError(`unknown command: ${name} (aide --help lists them)`)
    return ExitCode.usage
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    print(`Usage: ${command.usage}`)
    return ExitCode.ok
  }
  try {
    return await command.run(rest)
  } catch (error) {
    return report(error, command)
  }
}

const report = (error: unknown, command: Command): number => {
  if (error instanceof UsageError) {
    printError(`${error.message}\n\nUsage: ${command.usage.split("\n")[0]}  (aide ${command.name} --help)`)
    return ExitCode.usage
  }
  if (error instanceof AuthError) {
    printError(error.message)
    return ExitCode.auth
  }
  const status = (error as { status?: unknown }).status
  if (status === 401) {
    printError("not logged in, or the session ended: run aide login")
    return ExitCode.auth
  }
  if (error instanceof Failure) printError(error.message)
  else printError(error instanceof Error ? error.message : String(error))
  return ExitCode.failure
}
