import { Providers } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

export const ProviderList = Schema.Struct({ providers: Schema.Array(Providers.Provider) }).annotations({
  identifier: "ProviderList",
})

/** A connection as the API shows it: which variables are set, masked; never a value. */
export const Connection = Schema.Struct({
  provider: Schema.String,
  variables: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      hint: Schema.String.annotations({ description: "•••• and at most the value's last 4 characters" }),
    }),
  ),
  updatedAt: Schema.String,
  readable: Schema.Boolean.annotations({
    description: "false when the stored values do not open with this server's secret (it changed): set them again",
  }),
  setByEnvironment: Schema.Boolean.annotations({
    description: "the host's environment sets this provider: it wins, the connection is ignored",
  }),
}).annotations({ identifier: "Connection" })

export const ConnectionList = Schema.Struct({
  connections: Schema.Array(Connection),
  environment: Schema.Array(Schema.String).annotations({
    description: "ids of the providers the host's environment sets (they win over connections; edit them there)",
  }),
}).annotations({ identifier: "ConnectionList" })

/** `{ values: { OPENAI_API_KEY: "…" } }`: the provider's declared variables only (`envVars` of GET /api/models). */
export const ConnectionInput = Schema.Struct({
  values: Schema.Record({
    key: Schema.String.pipe(Schema.maxLength(64)),
    value: Schema.String.pipe(Schema.maxLength(4096)),
  }),
}).annotations({ identifier: "ConnectionInput" })

export const ConnectionTest = Schema.Struct({
  ok: Schema.Boolean,
  models: Schema.Array(Schema.String),
  listed: Schema.Boolean.annotations({
    description: "false for a provider that does not list its models (its suggestions are shown)",
  }),
  error: Schema.optional(Schema.String),
}).annotations({ identifier: "ConnectionTest" })

const ProviderPath = Schema.Struct({ provider: Schema.String.pipe(Schema.maxLength(64)) })

const notInSpec =
  "Not in SPEC (docs/api-decisions.md): the owner's provider connections, sealed at rest, never answered in clear."

/** SPEC "Plugins and models": the AI providers and whether they are configured; and the owner's connections. */
export class ModelsApi extends HttpApiGroup.make("models")
  .add(
    HttpApiEndpoint.get("list", "/api/models")
      .addSuccess(ProviderList)
      .annotate(OpenApi.Summary, "List AI providers and whether their keys are set"),
  )
  .add(
    HttpApiEndpoint.get("connections", "/api/models/connections")
      .addSuccess(ConnectionList)
      .annotate(OpenApi.Summary, "List provider connections (masked)")
      .annotate(OpenApi.Description, notInSpec),
  )
  .add(
    HttpApiEndpoint.put("connect", "/api/models/connections/:provider")
      .setPath(ProviderPath)
      .setPayload(ConnectionInput)
      .addSuccess(Connection)
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire)
      .annotate(OpenApi.Summary, "Set a provider's connection; takes effect at once")
      .annotate(
        OpenApi.Description,
        `${notInSpec} Replaces the provider's connection. 400 for an unknown provider or variable, a missing required variable, an empty, oversized or control-character value, a base URL that is not http(s); 409 when the host's environment sets the provider.`,
      ),
  )
  .add(
    HttpApiEndpoint.del("disconnect", "/api/models/connections/:provider")
      .setPath(ProviderPath)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire)
      .annotate(OpenApi.Summary, "Remove a provider's connection")
      .annotate(OpenApi.Description, notInSpec),
  )
  .add(
    HttpApiEndpoint.post("testConnection", "/api/models/connections/:provider/test")
      .setPath(ProviderPath)
      .addSuccess(ConnectionTest)
      .addError(BadRequest.Wire)
      .annotate(OpenApi.Summary, "List the provider's models with its current values")
      .annotate(
        OpenApi.Description,
        `${notInSpec} Asks the provider for its models through the registry (environment first, then the connection), within seconds; a failure is answered as { ok: false, error } in words.`,
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "AI model providers and connections (Bearer token)") {}
