import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const ServiceStatus = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  runtime: Schema.String,
  serverless: Schema.Boolean,
  auth: Schema.Struct({
    setup: Schema.Boolean,
    authenticated: Schema.Boolean,
  }),
}).annotations({ identifier: "ServiceStatus" })

/** `GET /`: public; tells clients whether to show setup or login. */
export class StatusApi extends HttpApiGroup.make("status")
  .add(
    HttpApiEndpoint.get("status", "/")
      .addSuccess(ServiceStatus)
      .annotate(OpenApi.Summary, "Service status: version, and whether setup or login comes next"),
  )
  .annotate(OpenApi.Description, "Service status, public") {}
