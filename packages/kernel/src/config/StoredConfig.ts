import { Either, Schema } from "effect"
import { describeParseError } from "../validation/Problems.js"
import { AppConfigDocument, defaults, maxDepth, unknownProvider } from "./ConfigModel.js"
import { storedEmbedderProvider, storedMemoryProvider } from "./MemoryConfig.js"
import { isJsonObject, type JsonObject, mergePatch, pathDeeperThan, setKey } from "./MergePatch.js"

/**
 * How a stored config document (only what the owner set) becomes the resolved one, and what
 * is made of a stored text that cannot be used as it is.
 */

const decode = Schema.decodeUnknownEither(AppConfigDocument, { errors: "all", onExcessProperty: "error" })

/** Names where a too deep value starts, without echoing thirty-odd keys. */
const describeDeepPath = (path: ReadonlyArray<string>) =>
  `${path.slice(0, 3).join(".")}${path.length > 3 ? ".…" : ""}: nests more than ${maxDepth} levels deep`

const sections = Object.keys(AppConfigDocument.fields)

/** The provider the stored document names, if it names one the schema accepts. */
const storedProvider = (stored: JsonObject) => {
  const models = stored.models
  const operator = isJsonObject(models) ? models.operator : undefined
  const provider = isJsonObject(operator) ? operator.provider : undefined
  return typeof provider === "string" && provider !== "" ? provider : undefined
}

/** `problem` among `problems` where the schema would have put it: before the operator's other fields. */
const withProviderProblem = (problems: ReadonlyArray<string>, problem: string) => {
  const after = (other: string) => {
    const path = other.slice(0, other.indexOf(":"))
    const section = sections.indexOf(path.split(".")[0]!)
    // Unknown keys (section -1) come first in the formatter's output, like the fields before `models`.
    return path.startsWith("models.operator.") || section > sections.indexOf("models")
  }
  const index = problems.findIndex(after)
  return index === -1 ? [...problems, problem] : [...problems.slice(0, index), problem, ...problems.slice(index)]
}

/**
 * The stored document resolved against the defaults, or every problem with it. The depth is
 * checked first, so schema decoding (which recurses) only ever sees bounded documents. A provider
 * the document names must be one of `providerIds` (the registry's). The default provider is not
 * checked when the document names none: a registry without `openai` still starts, and its chats
 * say which ids it knows.
 */
export const resolve = (
  stored: JsonObject,
  providerIds: ReadonlyArray<string>,
): Either.Either<AppConfigDocument, ReadonlyArray<string>> => {
  const merged = mergePatch(defaults, stored)
  const deep = pathDeeperThan(merged, maxDepth)
  if (deep !== undefined) return Either.left([describeDeepPath(deep)])
  const decoded = Either.mapLeft(decode(merged), (error) => describeParseError(error, "config"))
  const provider = storedProvider(stored)
  const memoryProvider = storedMemoryProvider(stored.memory)
  let problems = Either.isLeft(decoded) ? decoded.left : []
  if (provider !== undefined && !providerIds.includes(provider)) {
    problems = withProviderProblem(problems, unknownProvider(provider, providerIds))
  }
  if (memoryProvider !== undefined && !providerIds.includes(memoryProvider)) {
    problems = [...problems, unknownProvider(memoryProvider, providerIds, "memory.model")]
  }
  const embedderProvider = storedEmbedderProvider(stored.memory)
  if (embedderProvider !== undefined && !providerIds.includes(embedderProvider)) {
    problems = [...problems, unknownProvider(embedderProvider, providerIds, "memory.semanticRecall.embedder")]
  }
  return problems.length === 0 ? decoded : Either.left(problems)
}

/** The stored text as a JSON object, or why it is not one. JSON.parse is iterative: any depth parses. */
export const parse = (text: string): Either.Either<JsonObject, string> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return Either.left(`config: the stored text is not valid JSON (${String(error)})`)
  }
  return isJsonObject(value) ? Either.right(value) : Either.left("config: the stored document is not a JSON object")
}

const resolveOrDie = (stored: JsonObject, providerIds: ReadonlyArray<string>) =>
  Either.getOrThrowWith(
    resolve(stored, providerIds),
    (problems) => new Error(`default config is invalid: ${problems.join("; ")}`),
  )

/** A stored text, as far as it can be used. */
export interface Inspected {
  /** The stored document to build on: the text parsed, minus each top-level section that failed. */
  readonly document: JsonObject
  readonly resolved: AppConfigDocument
  /** What is wrong with the stored text; empty when all of it is in use. */
  readonly problems: ReadonlyArray<string>
}

/**
 * Any stored text resolves: a section that does not validate (a section a later release
 * tightened, a hand-edited row, a document nested too deep) falls back to its default, and a
 * text that is not a JSON object falls back to the defaults altogether. `problems` says what.
 */
export const inspect = (text: string, providerIds: ReadonlyArray<string>): Inspected => {
  const parsed = parse(text)
  if (Either.isLeft(parsed)) return { document: {}, resolved: resolveOrDie({}, providerIds), problems: [parsed.left] }
  const whole = resolve(parsed.right, providerIds)
  if (Either.isRight(whole)) return { document: parsed.right, resolved: whole.right, problems: [] }
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(parsed.right)) {
    const candidate = { ...kept }
    setKey(candidate, key, value)
    if (Either.isRight(resolve(candidate, providerIds))) setKey(kept, key, value)
  }
  return { document: kept, resolved: resolveOrDie(kept, providerIds), problems: whole.left }
}
