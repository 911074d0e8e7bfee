import { AuthModel } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized } from "./ApiErrors.js"
import { Authentication, RateLimited } from "./Security.js"

const requiredString = (field: string) =>
  Schema.String.annotations({
    message: () => `${field} must be a string`,
    missingMessage: `${field} is required`,
  })

/** A JSON object body; anything else (array, string, null) gets one clear message. */
const jsonObject = <Fields extends Schema.Struct.Fields>(fields: Fields, identifier: string) =>
  Schema.Struct(fields).annotations({ identifier, message: () => "request body must be a JSON object" })

export const PasswordBody = jsonObject({ password: requiredString("password") }, "PasswordBody")

/** SPEC: a missing refresh token is `400 refresh_token_required`, whatever else is wrong. */
export const RefreshBody = Schema.Struct({
  refreshToken: Schema.String.pipe(Schema.minLength(1)),
}).annotations({
  identifier: "RefreshBody",
  message: () => ({ message: "refresh_token_required", override: true }),
})

export const ChangePasswordBody = jsonObject(
  { currentPassword: requiredString("currentPassword"), newPassword: requiredString("newPassword") },
  "ChangePasswordBody",
)

export const Success = Schema.Struct({ success: Schema.Literal(true) })

/** `GET /api/auth/sessions` */
export const SessionList = Schema.Struct({ sessions: Schema.Array(AuthModel.Session) })

export const RevokeSessionResult = Schema.Struct({
  success: Schema.Literal(true),
  loggedOut: Schema.Boolean,
})

export const RevokeAllResult = Schema.Struct({
  success: Schema.Literal(true),
  loggedOut: Schema.Literal(true),
  revoked: Schema.Number,
})

/** Setup, login and refresh: no token needed, rate-limited per client IP. */
export class AuthPublicApi extends HttpApiGroup.make("authPublic")
  .add(
    HttpApiEndpoint.post("setup", "/api/auth/setup")
      .setPayload(PasswordBody)
      .addSuccess(AuthModel.TokenPair, { status: 201 })
      .addError(BadRequest.Wire)
      .addError(Conflict.Wire)
      // `auth_external`: the kernel's Auth is the host application's (HostAuth).
      .addError(Forbidden.Wire)
      .annotate(OpenApi.Summary, "Set the owner password (first run only)"),
  )
  .add(
    HttpApiEndpoint.post("login", "/api/auth/login")
      .annotate(OpenApi.Summary, "Log in with the password")
      .setPayload(PasswordBody)
      .addSuccess(AuthModel.TokenPair)
      .addError(BadRequest.Wire)
      .addError(Unauthorized.Wire)
      .addError(Forbidden.Wire),
  )
  .add(
    HttpApiEndpoint.post("refresh", "/api/auth/refresh")
      .annotate(OpenApi.Summary, "Trade a refresh token for a new token pair")
      .setPayload(RefreshBody)
      .addSuccess(AuthModel.TokenPair)
      .addError(BadRequest.Wire)
      .addError(Unauthorized.Wire)
      .addError(Forbidden.Wire),
  )
  .middleware(RateLimited)
  .annotate(OpenApi.Description, "Password setup, login and token refresh") {}

/** Everything that needs a valid access token. */
export class AuthProtectedApi extends HttpApiGroup.make("authProtected")
  .add(
    HttpApiEndpoint.post("logout", "/api/auth/logout")
      .addSuccess(Success)
      .annotate(OpenApi.Summary, "Revoke the current session"),
  )
  .add(
    HttpApiEndpoint.post("changePassword", "/api/auth/change-password")
      .annotate(OpenApi.Summary, "Change the password; every other session is revoked")
      .setPayload(ChangePasswordBody)
      .addSuccess(AuthModel.TokenPair)
      .addError(BadRequest.Wire)
      .addError(Forbidden.Wire)
      .addError(TooManyRequests.Wire),
  )
  .add(
    HttpApiEndpoint.get("listSessions", "/api/auth/sessions")
      .addSuccess(SessionList)
      .annotate(OpenApi.Summary, "List active sessions"),
  )
  .add(
    HttpApiEndpoint.del("revokeSession", "/api/auth/sessions/:id")
      .annotate(OpenApi.Summary, "Revoke one session")
      .setPath(Schema.Struct({ id: Schema.String }))
      .addSuccess(RevokeSessionResult)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.del("revokeAllSessions", "/api/auth/sessions")
      .addSuccess(RevokeAllResult)
      .annotate(OpenApi.Summary, "Revoke every session, the current one included"),
  )
  // The middleware added last runs first: authenticate, then count change-password attempts,
  // so requests without a valid token get 401 and never spend the owner's rate budget.
  .middleware(RateLimited)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Sessions, logout and password change (Bearer token)") {}
