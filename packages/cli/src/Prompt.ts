import { createInterface } from "node:readline"
import { Failure, UsageError } from "./Output.js"

/** Reads a line without echoing it (a password), from a terminal. */
export const readHidden = (question: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const input = process.stdin
    if (input.isTTY !== true) {
      reject(new UsageError("no terminal to type the password in: pipe it with --password-stdin"))
      return
    }
    process.stderr.write(question)
    input.setRawMode(true)
    input.resume()
    input.setEncoding("utf8")
    let value = ""
    const done = (error?: Error) => {
      input.setRawMode(false)
      input.pause()
      input.removeListener("data", onData)
      process.stderr.write("\n")
      if (error) reject(error)
      else resolve(value)
    }
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") return done()
        if (char === "\u0003") return done(new Failure("cancelled"))
        if (char === "\u0004" && value === "") return done(new Failure("cancelled"))
        if (char === "\u007f" || char === "\b") value = value.slice(0, -1)
        else if (char >= " ") value += char
      }
    }
    input.on("data", onData)
  })

/** The whole of standard input, without its final newline (`--password-stdin`). */
export const readStdin = async (): Promise<string> => {
  const parts: Array<Buffer> = []
  for await (const part of process.stdin) parts.push(part as Buffer)
  return Buffer.concat(parts)
    .toString("utf8")
    .replace(/\r?\n$/, "")
}

/**
 * One line from the terminal (readline opened for this question only, so Ctrl-C elsewhere is a
 * signal). Ctrl-C or Ctrl-D: undefined. (readline/promises' `question` never settles on close.)
 */
export const ask = (question: string): Promise<string | undefined> =>
  new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true })
    let answered = false
    rl.on("SIGINT", () => rl.close())
    rl.once("close", () => {
      if (!answered) {
        process.stdout.write("\n")
        resolve(undefined)
      }
    })
    rl.question(question, (answer) => {
      answered = true
      rl.close()
      resolve(answer)
    })
  })

/**
 * One key from the terminal, no Enter needed: resolves with the key (lower-cased) once it is one
 * of `keys`; any other key asks again. Ctrl-C or Ctrl-D: `cancel`. Without a terminal (a pipe),
 * reads lines instead, asking again on an unknown answer; the end of input is `cancel`.
 */
export const askKey = async (question: string, keys: ReadonlyArray<string>, cancel: string): Promise<string> => {
  const input = process.stdin
  if (input.isTTY !== true) {
    for (;;) {
      const line = await ask(question)
      if (line === undefined) return cancel
      const key = line.trim().toLowerCase().slice(0, 1)
      if (keys.includes(key)) return key
    }
  }
  process.stdout.write(question)
  return new Promise((resolve) => {
    input.setRawMode(true)
    input.resume()
    input.setEncoding("utf8")
    const done = (key: string) => {
      input.setRawMode(false)
      input.pause()
      input.removeListener("data", onData)
      process.stdout.write(`${key}\n`)
      resolve(key)
    }
    const onData = (chunk: string) => {
      if (chunk.includes("\u0003") || chunk.includes("\u0004")) return done(cancel)
      // One keypress is an answer; text typed ahead or pasted (several characters) is not.
      const key = chunk.toLowerCase()
      if ([...key].length === 1 && keys.includes(key)) return done(key)
      process.stdout.write(`\n${question}`)
    }
    input.on("data", onData)
  })
}
