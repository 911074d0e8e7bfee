// A tool's input checked against its JSON Schema here, in the plugin's process, before the tool
// runs (docs/plugin-sandbox.md). Here and not in the host: a schema is the plugin's code in all
// but name — a backtracking `pattern`, the validator's own `format` regexes or `uniqueItems` over
// a long array can take seconds, and that time must be this process's (the call times out and the
// process is restarted), never the server's event loop. The host checks only shape and size.

import { importPackage } from "./importer.mjs"

// The validator is loaded on the first call, not at start: ~15–30 ms of a process start (the
// bench's compartment start is ~100 ms of CPU) that a channel-only plugin, or one whose tools are
// not called, never needs. Loaded after lockdown, like the module transformer.
let Validator
const loadValidator = async () => {
  Validator ??= (await importPackage("@cfworker/json-schema")).Validator
  return Validator
}

/** Most problems named in one refusal. */
const maxProblems = 5
const wrappers = /^(properties|allOf|anyOf|oneOf|items|\$ref)$/

/**
 * `async (input) => problems`; a schema the validator cannot use accepts everything (the tool
 * still checks). The schema is compiled on the first check.
 */
export const inputChecker = (schema) => {
  let check
  return async (input) => {
    check ??= compiled(await loadValidator(), schema)
    return check(input)
  }
}

const compiled = (ValidatorClass, schema) => {
  let validator
  try {
    validator = new ValidatorClass(schema, "2020-12", false)
  } catch {
    return () => []
  }
  return (input) => {
    const result = validator.validate(input)
    if (result.valid) return []
    // The leaf errors name the field; the wrappers ("properties failed") repeat them.
    const leaves = result.errors.filter((error) => !wrappers.test(error.keyword))
    return (leaves.length > 0 ? leaves : result.errors)
      .slice(0, maxProblems)
      .map(
        (error) =>
          `${error.instanceLocation === "#" ? "input" : error.instanceLocation.replace(/^#/, "input")}: ${error.error}`,
      )
  }
}
