import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * Errors as they travel on the wire: exactly `{ "error": "<code or message>" }` (SPEC
 * "Errors"), with the status in the contract. In code they are yieldable tagged errors; the
 * transform drops the `_tag` when encoding, so clients never see it.
 */
const wireError = <Self extends { readonly error: string }>(
  errorClass: new (props: { readonly error: string }) => Self,
  status: number,
  description: string,
) =>
  Schema.transform(Schema.Struct({ error: Schema.String }), Schema.instanceOf(errorClass), {
    strict: true,
    decode: (wire) => new errorClass({ error: wire.error }),
    encode: (error) => ({ error: error.error }),
  }).annotations({
    ...HttpApiSchema.annotations({ status, description }),
    identifier: `Error${status}`,
  })

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { error: Schema.String }) {
  static readonly Wire = wireError(BadRequest, 400, "The request is malformed or fails validation")
}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { error: Schema.String }) {
  static readonly Wire = wireError(Unauthorized, 401, "Missing, invalid, expired or revoked credentials")
  static readonly unauthorized = new Unauthorized({ error: "unauthorized" })
}

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { error: Schema.String }) {
  static readonly Wire = wireError(Forbidden, 403, "Not allowed in the current state")
}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { error: Schema.String }) {
  static readonly Wire = wireError(NotFound, 404, "No such resource")
}

export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { error: Schema.String }) {
  static readonly Wire = wireError(Conflict, 409, "Conflicts with the current state")
}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  error: Schema.String,
}) {
  static readonly Wire = wireError(UnsupportedMediaType, 415, "An attachment of a type the model cannot take")
}

export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", {
  error: Schema.String,
}) {
  static readonly Wire = wireError(TooManyRequests, 429, "Rate limit exceeded; see Retry-After")
}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  error: Schema.String,
}) {
  static readonly Wire = wireError(ServiceUnavailable, 503, "The server is at capacity; see Retry-After")
}

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", { error: Schema.String }) {
  static readonly Wire = wireError(InternalError, 500, "Unexpected failure; details are in the server log")
}

/** Tags of the errors above: failures the HttpApi encodes itself. */
export const wireErrorTags: ReadonlySet<string> = new Set([
  "BadRequest",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "Conflict",
  "UnsupportedMediaType",
  "TooManyRequests",
  "ServiceUnavailable",
  "InternalError",
])

const decodeErrorRef = "#/components/schemas/HttpApiDecodeError"

/**
 * `OpenApi.Transform` for the API: HttpApi documents its own `HttpApiDecodeError` body for
 * every 400, but the error middleware answers decode failures with `{ error }` (BadRequest),
 * so the document shows only that body.
 */
export const documentWireErrors = (spec: Record<string, any>): Record<string, any> => {
  for (const item of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<any>(item)) {
      const badRequest = operation?.responses?.["400"]
      const schema = badRequest?.content?.["application/json"]?.schema
      if (!Array.isArray(schema?.anyOf)) continue
      const rest = schema.anyOf.filter((member: any) => member?.$ref !== decodeErrorRef)
      if (rest.length === 0 || rest.length === schema.anyOf.length) continue
      badRequest.content["application/json"].schema = rest.length === 1 ? rest[0] : { anyOf: rest }
      badRequest.description = "The request is malformed or fails validation"
    }
  }
  // Drop the decode error's schemas once nothing refers to them (in this order: each uses the next).
  const schemas = spec.components?.schemas ?? {}
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) {
    if (!JSON.stringify(spec).includes(`"#/components/schemas/${name}"`)) delete schemas[name]
  }
  return spec
}
