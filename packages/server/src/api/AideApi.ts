import { HttpApi, OpenApi } from "@effect/platform"
import { version } from "../version.js"
import { BadRequest, documentWireErrors, InternalError, NotFound, Unauthorized } from "./ApiErrors.js"
import { AuthProtectedApi, AuthPublicApi } from "./AuthApi.js"
import { ChatApi } from "./ChatApi.js"
import { ConfigApi } from "./ConfigApi.js"
import { InboxApi, ScheduleDestinationsApi } from "./InboxApi.js"
import { McpApi } from "./McpApi.js"
import { McpGrantsApi } from "./McpGrantsApi.js"
import { McpOAuthApi } from "./McpOAuthApi.js"
import { MemoryApi } from "./MemoryApi.js"
import { ModelsApi } from "./ModelsApi.js"
import { documentRateLimitHeaders } from "./OpenApiHeaders.js"
import { PluginsApi } from "./PluginsApi.js"
import { PushApi } from "./PushApi.js"
import { ScheduleApi } from "./ScheduleApi.js"
import { StatusApi } from "./StatusApi.js"
import { ThreadsApi } from "./ThreadsApi.js"

/** The whole HTTP contract of SPEC.md; handlers, OpenAPI and clients derive from it. */
export class AideApi extends HttpApi.make("aide")
  .add(StatusApi)
  .add(AuthPublicApi)
  .add(AuthProtectedApi)
  .add(ChatApi)
  .add(ThreadsApi)
  .add(ConfigApi)
  .add(ModelsApi)
  .add(PluginsApi)
  .add(InboxApi)
  .add(ScheduleDestinationsApi)
  .add(ScheduleApi)
  .add(McpApi)
  .add(McpOAuthApi)
  .add(McpGrantsApi)
  .add(MemoryApi)
  .add(PushApi)
  .addError(BadRequest.Wire)
  .addError(Unauthorized.Wire)
  .addError(NotFound.Wire)
  .addError(InternalError.Wire)
  .annotate(OpenApi.Title, "Aide API")
  // The same version `GET /` reports: both read the server's package.json.
  .annotate(OpenApi.Version, version)
  .annotate(OpenApi.Description, "Single-owner AI assistant server")
  // Relative: resolved against wherever the document was fetched from (OpenAPI 3.1 §4.8.5), so
  // it is right behind any proxy or host name without knowing the public URL.
  .annotate(OpenApi.Servers, [{ url: "/", description: "The server that serves this document" }])
  .annotate(OpenApi.Transform, (spec) => documentRateLimitHeaders(documentWireErrors(spec))) {}
