import { HttpApi, OpenApi } from "@effect/platform"
import { BadRequest, documentWireErrors, InternalError, NotFound, Unauthorized } from "./ApiErrors.js"
import { AuthProtectedApi, AuthPublicApi } from "./AuthApi.js"
import { StatusApi } from "./StatusApi.js"

/** The whole HTTP contract of SPEC.md; handlers, OpenAPI and clients derive from it. */
export class AideApi extends HttpApi.make("aide")
  .add(StatusApi)
  .add(AuthPublicApi)
  .add(AuthProtectedApi)
  .addError(BadRequest.Wire)
  .addError(Unauthorized.Wire)
  .addError(NotFound.Wire)
  .addError(InternalError.Wire)
  .annotate(OpenApi.Title, "Aide API")
  .annotate(OpenApi.Description, "Single-owner AI assistant server")
  .annotate(OpenApi.Transform, documentWireErrors) {}
