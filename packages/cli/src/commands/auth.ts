import { parse } from "../Args.js"
import type { Command } from "../Command.js"
import * as Credentials from "../Credentials.js"
import { AuthError, Failure, green, print } from "../Output.js"
import { credentialsFile } from "../Paths.js"
import { readHidden, readStdin } from "../Prompt.js"
import { connect } from "../Session.js"

const passwordOptions = { "password-stdin": { type: "boolean" } } as const

const isAideError = (error: unknown): error is { status: number; code: string; message: string } =>
  typeof (error as { status?: unknown }).status === "number"

const minimumLength = 8
const tooShort = `the password needs at least ${minimumLength} characters; nothing was changed`
const attempts = 3

/**
 * The new password, typed twice: a short one is refused before "Again:" and asked for again,
 * as are two that differ, up to three times (a typo should not cost a restart of the command).
 */
const askNewPassword = async (): Promise<string> => {
  for (let attempt = 1; ; attempt++) {
    const last = attempt === attempts
    const password = await readHidden("New password: ")
    if (password.length < minimumLength) {
      if (last) throw new Failure(tooShort)
      print(`the password needs at least ${minimumLength} characters; try again`)
      continue
    }
    if ((await readHidden("Again: ")) === password) return password
    if (last) throw new Failure("the two passwords differ; nothing was changed")
    print("the two passwords differ; try again")
  }
}

export const setup: Command = {
  name: "setup",
  summary: "choose the owner password of a new server (and log the CLI in)",
  usage: `aide setup [--url <url>] [--password-stdin]

Sets the owner password of a server that has none yet (POST /api/auth/setup): typed twice,
hidden, at least 8 characters (a short one, or two that differ, is asked for again, three tries
in all); or read from standard input with --password-stdin. The token pair
it returns is stored as \`aide login\` stores it. Exit 1 when the server is set up already.`,
  run: async (argv) => {
    const { values } = parse(argv, passwordOptions)
    let password: string
    if (values["password-stdin"]) {
      password = await readStdin()
      if (password.length < minimumLength) throw new Failure(tooShort)
    } else password = await askNewPassword()
    const { url, client } = connect(values.url)
    try {
      await client.auth.setup(password)
    } catch (error) {
      if (isAideError(error) && error.status === 409)
        throw new Failure(`${url} is set up already: log in with aide login --url ${url}`)
      throw error
    }
    print(`${green("✓")} password set on ${url}; the CLI is logged in (${credentialsFile()})`)
    return 0
  },
}

export const login: Command = {
  name: "login",
  summary: "log the CLI in to a server (token kept in a private file)",
  usage: `aide login [--url <url>] [--password-stdin]

Asks for the password (hidden) or reads it from standard input (--password-stdin), and keeps the
token pair in a file only you can read (0600): $AIDE_CLI_CONFIG, else ~/.config/aide/cli.json
(XDG_CONFIG_HOME respected). The server (default http://127.0.0.1:4111) becomes the one later
commands use without --url. Exit 3 on a wrong password.`,
  run: async (argv) => {
    const { values } = parse(argv, passwordOptions)
    const password = values["password-stdin"] ? await readStdin() : await readHidden("Password: ")
    const { url, client } = connect(values.url)
    try {
      await client.auth.login(password)
    } catch (error) {
      if (isAideError(error) && (error.status === 401 || error.status === 403))
        throw new AuthError(`login refused by ${url}: ${error.code}`)
      throw error
    }
    // The client stored the pair through the file store, which makes this server the default one.
    print(`${green("✓")} logged in to ${url} (token in ${credentialsFile()})`)
    return 0
  },
}

export const logout: Command = {
  name: "logout",
  summary: "end the CLI's session and forget its token",
  usage: `aide logout [--url <url>]

Revokes the CLI's session on the server (POST /api/auth/logout) and removes its token from the
credentials file. Succeeds (exit 0) when not logged in.`,
  run: async (argv) => {
    const { values } = parse(argv, {})
    const { url, client } = connect(values.url)
    if (Credentials.load(url) === undefined) {
      print(`not logged in to ${url}`)
      return 0
    }
    try {
      await client.auth.logout()
    } catch {
      // Unreachable server or expired session: forgetting the token locally is what matters.
    }
    Credentials.clear(url)
    print(`${green("✓")} logged out of ${url}`)
    return 0
  },
}
