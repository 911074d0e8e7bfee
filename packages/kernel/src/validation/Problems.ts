import { ParseResult, type SchemaAST } from "effect"

/**
 * How a value that does not decode is explained to its owner: one line per problem,
 * `path: reason` (`models.operator.temperature: must be a number between 0 and 2`). The kernel
 * words its documents this way, and the server words every request body that does not decode
 * with the same function, so a problem reads the same whichever checked it first.
 */

export type Issue = ParseResult.ArrayFormatterIssue

const unexpectedPrefix = "is unexpected, expected: "

/** `Expected null, actual 5` beside `Expected string, actual 5`: the other side of a `NullOr`. */
const isNullishAlternative = (issue: Issue) => /^Expected (null|undefined), actual /.test(issue.message)

/** The names a message begins with: `runId and threadId are required` → runId, threadId. */
const leadingNames = (message: string) =>
  (/^[\w.]+(?:(?:, | and | or )[\w.]+)*/.exec(message)?.[0] ?? "").split(/, | and | or /)

/**
 * A message that begins by naming its field (`title is required`, `runId and threadId are
 * required`) or is a code (`refresh_token_required`) stands alone; others get the path.
 */
const namesItself = (message: string, field: string) =>
  /^[a-z_]+$/.test(message) || leadingNames(message).includes(field)

/**
 * One problem as a line. A document names itself (`root`: `task`, `config`) and every problem
 * reads `path: reason`, a missing field `schedule.tasks.0.id: is required`. A request body has
 * no root: a problem of the whole is its message (`request body must be a JSON object`) and a
 * missing field reads as SPEC words it, `title is required`.
 */
const describeIssue = (issue: Issue, root?: string): string => {
  const path = issue.path.map(String).join(".")
  if (path === "") return root === undefined ? issue.message : `${root}: ${issue.message}`
  if (issue.message === "is missing") return root === undefined ? `${path} is required` : `${path}: is required`
  if (issue.message.startsWith(unexpectedPrefix)) {
    return `${path}: unknown key (expected one of ${issue.message.slice(unexpectedPrefix.length)})`
  }
  return namesItself(issue.message, path) ? issue.message : `${path}: ${issue.message}`
}

/**
 * Every problem as a line, in the order found. A value that is neither the type nor `null`
 * reads as the type's problem alone: the `null` alternative of a nullable field is left out.
 * Repeated lines are listed once.
 */
export const describeIssues = (issues: ReadonlyArray<Issue>, root?: string): ReadonlyArray<string> => {
  // Every path at or above a problem that is not a nullish alternative (linear: a body may have thousands).
  const covered = new Set<string>()
  for (const issue of issues) {
    if (isNullishAlternative(issue)) continue
    for (let length = 0; length <= issue.path.length; length++) covered.add(JSON.stringify(issue.path.slice(0, length)))
  }
  const relevant = issues.filter((issue) => !isNullishAlternative(issue) || !covered.has(JSON.stringify(issue.path)))
  return [...new Set(relevant.map((issue) => describeIssue(issue, root)))]
}

/** Every problem of a failed decoding, as `describeIssues` words them. */
export const describeParseError = (error: ParseResult.ParseError, root?: string): ReadonlyArray<string> =>
  describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error), root)

const asArray = <A>(value: A | ReadonlyArray<A>): ReadonlyArray<A> =>
  Array.isArray(value) ? (value as ReadonlyArray<A>) : [value as A]

/** The problems inside a struct's failure, worded by their own schemas. */
const issuesWithin = (issue: ParseResult.ParseIssue): ReadonlyArray<Issue> =>
  issue._tag === "Composite"
    ? asArray(issue.issues).flatMap((inner) => ParseResult.ArrayFormatter.formatIssueSync(inner))
    : []

/**
 * A struct's `message` annotation that words all its problems as one message (paths included,
 * so it `override`s the inner ones). `describe` gets the input and the problems found in it, and
 * may look at the input first (unknown fields, a `null` where none is allowed) to word a problem
 * the way its owner always has. For a body decoded both by the server, before the handler runs,
 * and by the kernel service it is handed to: both then answer the same words.
 */
export const worded =
  (describe: (input: unknown, issues: ReadonlyArray<Issue>) => string): SchemaAST.MessageAnnotation =>
  (issue) => ({ message: describe(issue.actual, issuesWithin(issue)), override: true })
