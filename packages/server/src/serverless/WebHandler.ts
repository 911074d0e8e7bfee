import { DueRunner, type Kernel } from "@aide/kernel"
import { type HttpApi, HttpApiBuilder, type HttpRouter } from "@effect/platform"
import { Data, Layer, Option, type Redacted, Supervisor } from "effect"
import type { TrustProxy } from "../http/ClientAddress.js"
import * as RequestSpan from "../metrics/RequestSpan.js"
import type { ServerOptions } from "../Server.js"
import * as Background from "./Background.js"
import * as RunDue from "./RunDue.js"
import * as ServerlessStreams from "./ServerlessStreams.js"

export interface ServerlessOptions {
  /**
   * Serverless mode (SPEC): `GET /` says `serverless: true`, nothing outlives a request (no
   * firing loop, no resumable streams: resume answers 204, `activeStreamIds` is `[]`), and due
   * tasks run when `POST /api/schedule/run-due` is called. Default false.
   */
  readonly serverless?: boolean
  /**
   * The platform's `waitUntil` (Vercel's `@vercel/functions`, or pass Cloudflare's `ctx.waitUntil`
   * per request): a request's leftover work (title, memory observation) is handed to it once the
   * response is complete. Without it, the response ends only once that work is done.
   */
  readonly waitUntil?: Background.WaitUntil
  /**
   * `AIDE_CRON_SECRET` (≥ 32 bytes): the Bearer a platform's cron calls the run-due trigger with
   * (an owner's token works too; wrong ones are rate-limited per client).
   */
  readonly cronSecret?: Option.Option<Redacted.Redacted<string>>
}

/** Why `Server.webHandler` refuses its options: a `cronSecret` or `metricsToken` under 32 bytes. */
export class WebHandlerOptionsError extends Data.TaggedError("WebHandlerOptionsError")<{ readonly message: string }> {}

/** The options of `Server.webHandler`: the server's, and serverless mode's. */
export type WebHandlerOptions = ServerOptions & ServerlessOptions

/** Per call: what Cloudflare-style hosts hand over beside the request. */
export interface InvocationContext {
  readonly waitUntil?: Background.WaitUntil
  /** The client's address as the host saw it (a Web `Request` has none); see `AIDE_TRUST_PROXY` for proxies. */
  readonly remoteAddress?: string
}

export interface WebHandler {
  readonly handler: (request: Request, context?: InvocationContext) => Promise<Response>
  readonly dispose: () => Promise<void>
}

interface KernelOptionsHolder {
  readonly kernel?: Partial<Omit<Kernel.KernelOptions, "dataDir">>
}

/** The kernel of serverless mode: the firing loop off and streams that end with their request. */
export const serverlessKernel = <O extends KernelOptionsHolder>(options: O): O => ({
  ...options,
  kernel: {
    streamHub: ServerlessStreams.layer,
    ...options.kernel,
    // The default scheduler's firing loop off (a `schedulerLayer` of the caller's is kept as given).
    scheduler: { ...options.kernel?.scheduler, enabled: false },
  },
})

type ApiLayer<E> = Layer.Layer<HttpApi.Api | HttpRouter.HttpRouter.DefaultServices | Kernel.KernelServices, E>

/** `HttpApiBuilder.toWebHandler` of `api`, in serverless mode when `options.serverless`. */
export const make = <E>(
  options: ServerlessOptions &
    KernelOptionsHolder & { readonly trustProxy: TrustProxy; readonly otlpEndpoint?: string | undefined },
  api: ApiLayer<E>,
): WebHandler => {
  // The request span (Aide's, not the platform's: see RequestSpan) only when something exports it.
  const traced = options.otlpEndpoint === undefined ? undefined : RequestSpan.middleware
  if (options.serverless !== true) {
    const { handler, dispose } = HttpApiBuilder.toWebHandler(api, traced === undefined ? {} : { middleware: traced })
    return { handler: (request) => handler(request), dispose }
  }
  const background = Background.make()
  const trigger = RunDue.layer({
    cronSecret: options.cronSecret ?? Option.none(),
    trustProxy: options.trustProxy,
  }).pipe(Layer.provide(DueRunner.layer(options.kernel?.scheduler)))
  const { handler, dispose } = HttpApiBuilder.toWebHandler(
    trigger.pipe(Layer.provideMerge(api), Layer.provide(Supervisor.addSupervisor(background.supervisor))),
    { middleware: traced === undefined ? background.middleware : (app) => background.middleware(traced(app)) },
  )
  const handle = (waitUntil: Background.WaitUntil | undefined) =>
    background.wrap((request) => handler(request), waitUntil)
  const shared = handle(options.waitUntil)
  return {
    handler: (request, context) =>
      (context?.waitUntil === undefined ? shared : handle(context.waitUntil))(request, context?.remoteAddress),
    dispose,
  }
}
