/** One `aide` command: its `--help` text and what it does; `run` resolves with the exit code. */
export interface Command {
  readonly name: string
  readonly summary: string
  readonly usage: string
  readonly run: (argv: ReadonlyArray<string>) => Promise<number>
}
