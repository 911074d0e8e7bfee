// A tool's input checked against its JSON Schema here, in the plugin's process, before the tool
// runs (docs/plugin-sandbox.md). Here and not in the host: a schema is the plugin's code in all
// but name — a backtracking `pattern`, the validator's own `format` regexes or `uniqueItems` over
// a long array can take seconds, and that time must be this process's (the call times out and the
// process is restarted), never the server's event loop. The host checks only shape and size.

import { Validator } from "@cfworker/json-schema"

/** Most problems named in one refusal. */
const maxProblems = 5
const wrappers = /^(properties|allOf|anyOf|oneOf|items|\$ref)$/

/** `(input) => problems`; a schema the validator cannot use accepts everything (the tool still checks). */
export const inputChecker = (schema) => {
  let validator
  try {
    validator = new Validator(schema, "2020-12", false)
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
