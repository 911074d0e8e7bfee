import { Validator } from "@cfworker/json-schema"

/** Most problems named in one refusal. */
const maxProblems = 5

/**
 * A tool's input checked against its JSON Schema in the host, before it crosses into the plugin
 * process: a wrong input is the model's mistake, told back as a tool error, and never costs the
 * plugin a call. A schema the validator cannot use accepts everything (the plugin still checks).
 */
export const inputChecker = (
  schema: Readonly<Record<string, unknown>>,
): ((input: unknown) => ReadonlyArray<string>) => {
  let validator: Validator
  try {
    validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], "2020-12", false)
  } catch {
    return () => []
  }
  return (input) => {
    const result = validator.validate(input)
    if (result.valid) return []
    // The leaf errors name the field; the wrappers ("properties failed") repeat them.
    const leaves = result.errors.filter((error) => !/^(properties|allOf|anyOf|oneOf|items|\$ref)$/.test(error.keyword))
    return (leaves.length > 0 ? leaves : result.errors)
      .slice(0, maxProblems)
      .map(
        (error) =>
          `${error.instanceLocation === "#" ? "input" : error.instanceLocation.replace(/^#/, "input")}: ${error.error}`,
      )
  }
}
