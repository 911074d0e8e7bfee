import { Auth, type AuthModel } from "@aide/kernel"
import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AideApi } from "../api/AideApi.js"
import { BadRequest, Conflict, Forbidden, NotFound, Unauthorized } from "../api/ApiErrors.js"
import type { SessionList } from "../api/AuthApi.js"
import { CurrentSession } from "../api/Security.js"
import { clientAddress, type TrustProxy } from "../http/ClientAddress.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/** Token responses must never be cached (RFC 6749 §5.1). */
const noStore = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store")),
)

/**
 * `SessionList` encoded by hand, to the JSON its schema gives (dates as ISO strings, the same
 * field order; the type keeps it in step with the schema): `GET /api/auth/sessions` is the
 * busiest authenticated read, and the schema's encoder (a parse per field) cost several
 * percent of its CPU.
 */
const encodeSessionList = (sessions: ReadonlyArray<AuthModel.Session>): typeof SessionList.Encoded => ({
  sessions: sessions.map((session) => ({
    id: session.id,
    createdAt: session.createdAt.toISOString(),
    expiresAt: session.expiresAt.toISOString(),
    userAgent: session.userAgent,
    ip: session.ip,
    current: session.current,
  })),
})

const utf8 = new TextEncoder()
/**
 * The body of a list, rendered once: Auth hands every request of a session the same list for as
 * long as the list of active sessions is cached (a second), so its JSON is not built again.
 */
const renderedLists = new WeakMap<ReadonlyArray<AuthModel.Session>, Uint8Array>()
const sessionListBody = (sessions: ReadonlyArray<AuthModel.Session>): Uint8Array => {
  let body = renderedLists.get(sessions)
  if (body === undefined) {
    body = utf8.encode(JSON.stringify(encodeSessionList(sessions)))
    renderedLists.set(sessions, body)
  }
  return body
}

const invalidCredentials = () => new Unauthorized({ error: "invalid_credentials" })
const badPassword = (error: { readonly message: string }) => new BadRequest({ error: error.message })
/** The kernel's Auth is the host application's (`HostAuth`): no password or refresh here. */
const authExternal = () => new Forbidden({ error: "auth_external" })

export const layer = (options: { readonly trustProxy: TrustProxy }) => {
  const clientInfo = Effect.map(
    HttpServerRequest.HttpServerRequest,
    (request): AuthModel.ClientInfo => ({
      userAgent: request.headers["user-agent"] ?? "",
      ip: clientAddress(request, options.trustProxy),
    }),
  )

  const publicHandlers = HttpApiBuilder.group(AideApi, "authPublic", (handlers) =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      return handlers
        .handle("setup", ({ payload }) =>
          Effect.flatMap(clientInfo, (client) => auth.setup(payload.password, client)).pipe(
            Effect.tap(noStore),
            Effect.catchTags({
              AlreadySetup: () => new Conflict({ error: "already_setup" }),
              InvalidPassword: badPassword,
              AuthExternal: authExternal,
            }),
            dieOnStorageError,
          ),
        )
        .handle("login", ({ payload }) =>
          Effect.flatMap(clientInfo, (client) => auth.login(payload.password, client)).pipe(
            Effect.tap(noStore),
            Effect.catchTags({
              SetupRequired: () => new Forbidden({ error: "setup_required" }),
              InvalidCredentials: invalidCredentials,
              AuthExternal: authExternal,
            }),
            dieOnStorageError,
          ),
        )
        .handle("refresh", ({ payload }) =>
          auth
            .refresh(payload.refreshToken)
            .pipe(
              Effect.tap(noStore),
              Effect.catchTags({ InvalidRefreshToken: () => Unauthorized.unauthorized, AuthExternal: authExternal }),
              dieOnStorageError,
            ),
        )
    }),
  )

  const protectedHandlers = HttpApiBuilder.group(AideApi, "authProtected", (handlers) =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      return (
        handlers
          .handle("logout", () =>
            Effect.flatMap(CurrentSession, auth.logout).pipe(Effect.as({ success: true as const }), dieOnStorageError),
          )
          .handle("changePassword", ({ payload }) =>
            Effect.flatMap(clientInfo, (client) =>
              auth.changePassword({
                currentPassword: payload.currentPassword,
                newPassword: payload.newPassword,
                client,
              }),
            ).pipe(
              Effect.tap(noStore),
              Effect.catchTags({
                InvalidCredentials: invalidCredentials,
                InvalidPassword: badPassword,
                // Unreachable with a valid session; answered like a wrong password all the same.
                SetupRequired: invalidCredentials,
                AuthExternal: authExternal,
              }),
              dieOnStorageError,
            ),
          )
          // The busiest authenticated read: encoded by hand (above), to the same JSON HttpApi
          // would produce, without its per-request Effect-based encoder.
          .handleRaw("listSessions", () =>
            Effect.flatMap(CurrentSession, auth.listSessions).pipe(
              Effect.map((sessions) =>
                HttpServerResponse.uint8Array(sessionListBody(sessions), {
                  status: 200,
                  contentType: "application/json",
                }),
              ),
              dieOnStorageError,
            ),
          )
          .handle("revokeSession", ({ path }) =>
            Effect.flatMap(CurrentSession, (principal) => auth.revokeSession(principal, path.id)).pipe(
              Effect.map(({ loggedOut }) => ({ success: true as const, loggedOut })),
              Effect.catchTag("SessionNotFound", () => new NotFound({ error: "session_not_found" })),
              dieOnStorageError,
            ),
          )
          .handle("revokeAllSessions", () =>
            auth.revokeAllSessions.pipe(
              Effect.map((revoked) => ({ success: true as const, loggedOut: true as const, revoked })),
              dieOnStorageError,
            ),
          )
      )
    }),
  )

  return Layer.mergeAll(publicHandlers, protectedHandlers)
}
