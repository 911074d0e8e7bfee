import { DueRunner } from "@aide/kernel"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, type Option, type Redacted } from "effect"
import * as BearerGate from "../http/BearerGate.js"
import type { TrustProxy } from "../http/ClientAddress.js"

/** The trigger route of serverless mode: a platform's cron calls it instead of a firing loop. */
export const path = "/api/schedule/run-due"

/**
 * `POST /api/schedule/run-due`: runs every due task and heartbeat, answering `{ fired }` once
 * their runs have finished (so none outlives the invocation). Authorized by `AIDE_CRON_SECRET`
 * as a Bearer, or an owner's access token (wrong ones are rate-limited, see `BearerGate`); each
 * due time still fires once (the run ledger).
 */
export const layer = (options: {
  readonly cronSecret: Option.Option<Redacted.Redacted<string>>
  readonly trustProxy: TrustProxy
}) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const runner = yield* DueRunner.DueRunner
      const gate = yield* BearerGate.make({ route: path, secret: options.cronSecret, trustProxy: options.trustProxy })
      yield* router.post(
        path,
        gate(
          runner.runDue.pipe(
            Effect.orDie,
            Effect.flatMap(({ fired }) => HttpServerResponse.json({ fired })),
            Effect.orDie,
          ),
        ),
      )
    }),
  )
