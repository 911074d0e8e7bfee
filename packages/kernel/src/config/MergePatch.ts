import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"

/** A JSON object: what the config document and every patch of it are. */
export type JsonObject = { readonly [key: string]: unknown }

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `target[key] = value`, also for a `__proto__` key from JSON (kept as data, not a prototype). */
export const setKey = (target: Record<string, unknown>, key: string, value: unknown) => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * JSON Merge Patch (RFC 7396): objects merge key by key, `null` deletes a key, anything else
 * (arrays included) replaces. Neither argument is mutated.
 *
 * Iterative, with its own work list: a recursive merge overflowed the stack on a document
 * nested a few thousand levels deep, which a stored row or an embedder's patch can be.
 */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isJsonObject(patch)) return patch
  const root: Record<string, unknown> = isJsonObject(target) ? { ...target } : {}
  const work: Array<readonly [Record<string, unknown>, JsonObject]> = [[root, patch]]
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    const [result, part] = next
    for (const [key, value] of Object.entries(part)) {
      if (value === null) {
        delete result[key]
      } else if (!isJsonObject(value)) {
        setKey(result, key, value)
      } else {
        const existing = Object.hasOwn(result, key) ? result[key] : undefined
        const merged: Record<string, unknown> = isJsonObject(existing) ? { ...existing } : {}
        setKey(result, key, merged)
        work.push([merged, value])
      }
    }
  }
  return root
}

/**
 * The path to the first value nested deeper than `limit` objects and arrays (the value itself
 * counting as level 1), or `undefined` when there is none. Iterative, like `mergePatch`, so it
 * can measure any input; it stops descending at the limit, so its cost is bounded by the input.
 */
export const pathDeeperThan = (value: unknown, limit: number): ReadonlyArray<string> | undefined => {
  const work: Array<readonly [unknown, ReadonlyArray<string>]> = [[value, []]]
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    const [current, path] = next
    if (typeof current !== "object" || current === null) continue
    if (path.length >= limit) return path
    for (const [key, child] of Object.entries(current)) work.push([child, [...path, key]])
  }
  return undefined
}

/**
 * A merge patch of `A`: every key of every object optional, `null` to delete it; arrays and
 * other values are sent whole, as they replace what was there.
 */
export type Patch<A> = A extends ReadonlyArray<unknown>
  ? A
  : A extends object
    ? { readonly [K in keyof A]?: Patch<A[K]> | null }
    : A

const patchName = (annotated: SchemaAST.Annotated) =>
  Option.match(SchemaAST.getIdentifierAnnotation(annotated), {
    onNone: () => ({}),
    onSome: (identifier) => ({ [SchemaAST.IdentifierAnnotationId]: `${identifier}Patch` }),
  })

const nullable = (ast: SchemaAST.AST) => SchemaAST.Union.make([ast, SchemaAST.null])

/** A value that is not an object is refused in the words the document's object uses. */
const typeMessage = (ast: SchemaAST.TypeLiteral) => ({
  [SchemaAST.MessageAnnotationId]: (issue: ParseResult.ParseIssue) =>
    ParseResult.ArrayFormatter.formatIssueSync(new ParseResult.Type(ast, issue.actual))[0]?.message ?? "",
})

/**
 * What a patch may hold where the document holds `ast`. An object becomes a patch of itself
 * (its name gets `Patch`; a rule across its keys, such as "a command or a url", is left to the
 * merged document); an object's defaults are not applied (a patch sets only what it sends).
 */
const patchAst = (ast: SchemaAST.AST): SchemaAST.AST => {
  switch (ast._tag) {
    case "TypeLiteral":
      return new SchemaAST.TypeLiteral(
        ast.propertySignatures.map(
          (property) =>
            new SchemaAST.PropertySignature(
              property.name,
              nullable(patchAst(property.type)),
              true,
              property.isReadonly,
              property.annotations,
            ),
        ),
        ast.indexSignatures.map(
          (index) => new SchemaAST.IndexSignature(index.parameter, nullable(patchAst(index.type)), index.isReadonly),
        ),
        { ...typeMessage(ast), ...ast.annotations, ...patchName(ast) },
      )
    case "Refinement":
    case "Transformation": {
      const object = ast.from
      if (object._tag !== "TypeLiteral" && object._tag !== "Refinement" && object._tag !== "Transformation") return ast
      const patched = patchAst(object)
      if (patched === object) return ast
      // The wrapper's name, description and message (a default's transformation carries them).
      const kept = [SchemaAST.DescriptionAnnotationId, SchemaAST.MessageAnnotationId].filter((id) =>
        Object.hasOwn(ast.annotations, id),
      )
      return SchemaAST.annotations(patched, {
        ...Object.fromEntries(kept.map((id) => [id, ast.annotations[id]])),
        ...patchName(ast),
      })
    }
    default:
      return ast
  }
}

/**
 * The schema of a JSON Merge Patch of documents of `schema` (`Patch<Encoded>`): what a client
 * may send to change a stored document. Values keep their own checks (a time zone must still
 * be one); the merged document is validated as a whole by its owner. For JSON documents whose
 * values decode to themselves, as the config's do; objects inside arrays are values too.
 */
export const schemaOf = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<Patch<I>> =>
  Schema.make(patchAst(schema.ast))

const valueAt = (value: unknown, path: ReadonlyArray<PropertyKey>) =>
  path.reduce<unknown>((node, key) => (isJsonObject(node) ? node[String(key)] : undefined), value)

/**
 * Every problem of `patch` against `schema` (a `schemaOf` schema), unknown keys included: an
 * unknown key holding `null` is no problem (it deletes nothing, RFC 7396), any other value is.
 * For a contract that lets unknown keys through (`onExcessProperty: "preserve"`, the document's
 * owner refuses them) and words, when a patch does not decode, all its problems at once.
 */
export const problemsOf = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
  return (patch: unknown): ReadonlyArray<ParseResult.ArrayFormatterIssue> =>
    Either.match(decode(patch), {
      onLeft: (error) =>
        ParseResult.ArrayFormatter.formatErrorSync(error).filter(
          (issue) => issue._tag !== "Unexpected" || valueAt(patch, issue.path) !== null,
        ),
      onRight: () => [],
    })
}
