import { Auth } from "@aide/kernel"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { AideApi } from "../api/AideApi.js"
import { ServiceStatus } from "../api/StatusApi.js"

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
      // Only four answers exist (setup × authenticated): each is encoded by the schema once, as
      // HttpApi would encode it (JSON, 200), instead of on every request.
      const answer = (setup: boolean, signedIn: boolean) =>
        HttpServerResponse.unsafeJson(
          Schema.encodeSync(ServiceStatus)({ ...info, auth: { setup, authenticated: signedIn } }),
          { status: 200, contentType: "application/json" },
        )
      const answers = [
        [answer(false, false), answer(false, true)],
        [answer(true, false), answer(true, true)],
      ] as const
      return handlers.handleRaw("status", ({ request }) =>
        Effect.flatMap(auth.isSetup, (setup) =>
          Effect.map(
            authenticated(request.headers.authorization),
            (signedIn) => answers[setup ? 1 : 0][signedIn ? 1 : 0],
          ),
        ).pipe(Effect.orDie),
      )
    }),
  )
