/** What the CLI prints: colours only on a TTY without NO_COLOR, ✓/✗ lines, progress on stderr. */

import { printable } from "./Printable.js"

/** Exit codes scripts can rely on (documented in docs/cli.md). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** A wrong command line: printed with the command's usage, exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

/** Not logged in, or the server refused the stored token: exit 3. */
export class AuthError extends Error {
  override readonly name = "AuthError"
}

/** Anything else that makes the command fail with a message for the user: exit 1. */
export class Failure extends Error {
  override readonly name = "Failure"
}

const colourful = (stream: NodeJS.WriteStream) =>
  stream.isTTY === true && process.env.NO_COLOR === undefined && process.env.TERM !== "dumb"

const paint = (code: number, stream: NodeJS.WriteStream) => (text: string) =>
  colourful(stream) ? `\u001b[${code}m${text}\u001b[0m` : text

export const green = paint(32, process.stdout)
export const red = paint(31, process.stdout)
export const yellow = paint(33, process.stdout)
export const dim = paint(2, process.stdout)
export const bold = paint(1, process.stdout)
export const cyan = paint(36, process.stdout)

export const print = (line = "") => {
  process.stdout.write(`${line}\n`)
}

/** An error's message may quote a server's or a plugin's words: printed without their control sequences. */
export const printError = (line: string) => {
  process.stderr.write(`${paint(31, process.stderr)("aide:")} ${printable(line, { multiline: true })}\n`)
}

export const printJson = (value: unknown) => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

/** Progress of something long, on stderr (so `--json` output stays clean): a spinner on a TTY, lines otherwise. */
export const progress = (label: string) => {
  const started = Date.now()
  const tty = process.stderr.isTTY === true
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
  let frame = 0
  let current = label
  const timer = tty
    ? setInterval(() => {
        process.stderr.write(`\r${frames[frame++ % frames.length]} ${current}\u001b[K`)
      }, 100)
    : undefined
  if (!tty) process.stderr.write(`${label}…\n`)
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1)
  const end = (mark: string, text: string) => {
    if (timer) clearInterval(timer)
    process.stderr.write(`${tty ? "\r" : ""}${mark} ${text} (${seconds()} s)${tty ? "\u001b[K" : ""}\n`)
  }
  return {
    update: (text: string) => {
      current = `${label}: ${text}`
      if (!tty) process.stderr.write(`${current}\n`)
    },
    done: (text = label) => end(paint(32, process.stderr)("✓"), text),
    fail: (text = label) => end(paint(31, process.stderr)("✗"), text),
  }
}
