import { Cause } from "effect"

/** A failure as one line for a log: the error's message, never its data (bodies, inputs). */
export const causeMessage = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (error instanceof Error) return error.message
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message)
  return String(error)
}
