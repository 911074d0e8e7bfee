import { Effect, Schema } from "effect"
import type { Connectable } from "../Providers.js"

/** A connection the provider cannot take: unknown provider or variable, a bad URL, too long a value. */
export class InvalidConnection extends Schema.TaggedError<InvalidConnection>()("InvalidConnection", {
  message: Schema.String,
}) {}

const maxValueLength = 4096
const maxUrlLength = 2048
const controlCharacter = /\p{Cc}/u

/** At most the last 4 characters, and only of a value long enough that they give little away. */
export const mask = (value: string) => (value.length >= 16 ? `••••${value.slice(-4)}` : "••••")

/** `values` checked against the provider's declared variables: trimmed, bounded, URLs http(s). */
export const checkValues = (provider: string, rules: Connectable, values: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const fail = (message: string) => Effect.fail(new InvalidConnection({ message }))
    const checked: Record<string, string> = {}
    for (const [name, raw] of Object.entries(values)) {
      if (!rules.envVars.includes(name))
        return yield* fail(`provider ${provider} takes ${rules.envVars.join(", ")}, not ${name.slice(0, 64)}`)
      if (typeof raw !== "string") return yield* fail(`${name} must be text`)
      const value = raw.trim()
      if (value === "") return yield* fail(`${name} is empty: leave it out instead`)
      if (value.length > maxValueLength) return yield* fail(`${name} is longer than ${maxValueLength} characters`)
      if (controlCharacter.test(value)) return yield* fail(`${name} contains control characters`)
      if (name.endsWith("_URL")) {
        const url = URL.canParse(value) ? new URL(value) : undefined
        if (url === undefined || !["http:", "https:"].includes(url.protocol) || value.length > maxUrlLength)
          return yield* fail(`${name} must be an http(s) URL of at most ${maxUrlLength} characters`)
      }
      checked[name] = value
    }
    const missing = rules.requiredEnv.filter((name) => checked[name] === undefined)
    if (missing.length > 0) return yield* fail(`provider ${provider} needs ${missing.join(" and ")}`)
    if (Object.keys(checked).length === 0) return yield* fail(`give at least one of ${rules.envVars.join(", ")}`)
    return checked
  })
