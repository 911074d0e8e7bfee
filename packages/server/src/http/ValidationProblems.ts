import { Problems } from "@aide/kernel/internal"
import type { HttpApiDecodeError } from "@effect/platform/HttpApiError"

/**
 * The `error` of every 400 whose request does not decode (body, path, query or headers): each
 * problem as the kernel words its own (`Problems.describeIssues`), joined with `; `. A schema
 * that decodes with `errors: "all"` gets every problem listed, others their first.
 */
export const describeDecodeError = (error: HttpApiDecodeError): string => {
  const problems = Problems.describeIssues(error.issues)
  return problems.length === 0 ? "invalid request" : problems.join("; ")
}
