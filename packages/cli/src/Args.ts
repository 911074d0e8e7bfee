import { type ParseArgsConfig, parseArgs } from "node:util"
import { UsageError } from "./Output.js"

type Options = NonNullable<ParseArgsConfig["options"]>

/** Options every command takes. */
export const commonOptions = {
  help: { type: "boolean", short: "h" },
  url: { type: "string" },
  json: { type: "boolean" },
  "data-dir": { type: "string" },
} as const satisfies Options

/** `parseArgs`, strict, with unknown options and extra arguments as usage errors (exit 2). */
export const parse = <O extends Options>(argv: ReadonlyArray<string>, options: O, maxPositionals = 0) => {
  type Parsed = ReturnType<
    typeof parseArgs<{ options: O & typeof commonOptions; allowPositionals: true; strict: true }>
  >
  let parsed: Parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...commonOptions, ...options },
      allowPositionals: true,
      strict: true,
    }) as Parsed
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
  if ((parsed.values as { help?: boolean }).help !== true && parsed.positionals.length > maxPositionals)
    throw new UsageError(`unexpected argument: ${parsed.positionals[maxPositionals]}`)
  return parsed
}
