import { Effect } from "effect"
import type { AuthSettings } from "./AuthConfig.js"
import { InvalidPassword } from "./AuthErrors.js"

/** A new password's length rule, counted in characters (code points), not UTF-16 units. */
export const check = (
  config: Pick<AuthSettings, "minPasswordLength" | "maxPasswordLength">,
  password: string,
): Effect.Effect<void, InvalidPassword> => {
  const length = [...password].length
  if (length < config.minPasswordLength) {
    return Effect.fail(
      new InvalidPassword({ message: `password must be at least ${config.minPasswordLength} characters` }),
    )
  }
  if (length > config.maxPasswordLength) {
    return Effect.fail(
      new InvalidPassword({ message: `password must be at most ${config.maxPasswordLength} characters` }),
    )
  }
  return Effect.void
}
