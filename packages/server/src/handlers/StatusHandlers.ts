import { Auth } from "@aide/kernel"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"

export interface StatusInfo {
  readonly name: string
  readonly version: string
  readonly runtime: string
  readonly serverless: boolean
}

const bearer = /^bearer (.+)$/i

export const layer = (info: StatusInfo) =>
  HttpApiBuilder.group(AideApi, "status", (handlers) =>
    Effect.gen(function* () {
      const auth = yield* Auth.Auth
      // Optional authentication: a bad token is not an error here, just `authenticated: false`.
      const authenticated = (header: string | undefined) => {
        const token = header === undefined ? undefined : bearer.exec(header)?.[1]
        return token === undefined
          ? Effect.succeed(false)
          : auth.authenticate(token).pipe(
              Effect.as(true),
              Effect.catchTag("Unauthenticated", () => Effect.succeed(false)),
            )
      }
      return handlers.handle("status", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          return {
            ...info,
            auth: {
              setup: yield* auth.isSetup,
              authenticated: yield* authenticated(request.headers.authorization),
            },
          }
        }).pipe(Effect.orDie),
      )
    }),
  )
