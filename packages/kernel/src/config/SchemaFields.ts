import { Schema } from "effect"

/** Building blocks of the config document's schema (`ConfigModel`, `MemoryConfig`). */

/** Exact: a key may be absent, not `undefined` (the document is JSON). */
export const optional = <S extends Schema.Schema.Any>(schema: S, description?: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations(description === undefined ? {} : { description })

/** A required field, documented (on the key: a value's own annotations would change its messages). */
export const field = <S extends Schema.Schema.All>(schema: S, description: string) =>
  Schema.propertySignature(schema).annotations({ description })

/** A section: an object with exactly these fields. */
export const section = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ message: () => "must be an object" })
