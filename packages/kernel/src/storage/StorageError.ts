import { Effect, Schema } from "effect"

/** A database failure. Wraps `SqlError` so callers never depend on a driver's error type. */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect),
}) {}

/**
 * Turns every failure of a storage effect into a `StorageError` naming the operation,
 * keeping the driver's error as the cause for logs (it never reaches an API response).
 */
export const orStorageError =
  (operation: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, StorageError, R> =>
    Effect.mapError(effect, (cause) => new StorageError({ message: `${operation} failed`, cause }))

/** Like `orStorageError`, but wraps the driver's `SqlError`s only: a method's domain errors pass through. */
export const sqlErrorsAsStorage =
  (operation: string) =>
  <A, E, R>(
    effect: Effect.Effect<A, E, R>,
  ): Effect.Effect<A, Exclude<E, { readonly _tag: "SqlError" }> | StorageError, R> =>
    Effect.catchIf(
      effect,
      (error): error is Extract<E, { readonly _tag: "SqlError" }> =>
        (error as { readonly _tag?: unknown })._tag === "SqlError",
      (cause) => Effect.fail(new StorageError({ message: `${operation} failed`, cause })),
    ) as Effect.Effect<A, Exclude<E, { readonly _tag: "SqlError" }> | StorageError, R>
