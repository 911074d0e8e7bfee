import { Effect, Predicate } from "effect"

/**
 * A storage failure (`StorageError`) in a handler (or the authentication middleware) is a defect, not an answer of the contract:
 * the error middleware logs it with a request id and answers 500 `internal_error`. Every other
 * failure passes on, still typed. Piped last, after the handler has mapped its domain errors.
 */
export const dieOnStorageError = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, Exclude<E, Extract<E, { readonly _tag: "StorageError" }>>, R> =>
  Effect.catchIf(
    effect,
    (error): error is Extract<E, { readonly _tag: "StorageError" }> => Predicate.isTagged(error, "StorageError"),
    Effect.die,
  )
