import type { HttpApp } from "@effect/platform"
import { HttpServerRequest } from "@effect/platform"
import { Effect, type Exit, type Fiber, Option, Supervisor } from "effect"

/** The platform's way to keep an invocation alive after its response (`ctx.waitUntil`). */
export type WaitUntil = (promise: Promise<unknown>) => void

/**
 * Work a request leaves behind (a thread's title, memory observation, recall indexing): every
 * fiber forked, directly or not, by a request's fiber is counted against that request. Fibers
 * of the services themselves (started while the kernel was built, or by its own watchers) are
 * not, so a long-lived MCP connection never holds a request.
 */
class RequestFibers extends Supervisor.AbstractSupervisor<void> {
  readonly value = Effect.void
  private readonly owner = new WeakMap<Fiber.RuntimeFiber<unknown, unknown>, object>()
  private readonly live = new WeakMap<object, Set<Fiber.RuntimeFiber<unknown, unknown>>>()

  override onStart<A, E>(
    _context: unknown,
    _effect: unknown,
    parent: Option.Option<Fiber.RuntimeFiber<any, any>>,
    fiber: Fiber.RuntimeFiber<A, E>,
  ): void {
    if (Option.isNone(parent)) return
    const token = this.owner.get(parent.value)
    if (token !== undefined) this.add(token, fiber)
  }

  override onEnd<A, E>(_value: Exit.Exit<A, E>, fiber: Fiber.RuntimeFiber<A, E>): void {
    const token = this.owner.get(fiber)
    if (token !== undefined) this.live.get(token)?.delete(fiber)
  }

  add(token: object, fiber: Fiber.RuntimeFiber<any, any>) {
    this.owner.set(fiber, token)
    let fibers = this.live.get(token)
    if (fibers === undefined) {
      fibers = new Set()
      this.live.set(token, fibers)
    }
    fibers.add(fiber)
  }

  /** Resolves once every fiber of `token` has ended, including those they start meanwhile. */
  async settled(token: object): Promise<void> {
    for (;;) {
      const fibers = Array.from(this.live.get(token) ?? [])
      if (fibers.length === 0) return
      await Promise.all(fibers.map((fiber) => Effect.runPromise(fiber.await)))
    }
  }
}

export interface Background {
  /** Installs the fiber accounting in the handler's runtime. */
  readonly supervisor: Supervisor.Supervisor<void>
  /** The `toWebHandler` middleware that marks the request's fiber as this request's. */
  readonly middleware: (app: HttpApp.Default) => HttpApp.Default
  /**
   * The handler with background work accounted: its promise goes to `waitUntil` once the
   * response is complete, or without `waitUntil` the response ends only after it.
   */
  readonly wrap: (
    handler: (request: Request) => Promise<Response>,
    waitUntil: WaitUntil | undefined,
  ) => (request: Request, remoteAddress?: string) => Promise<Response>
}

export const make = (): Background => {
  const fibers = new RequestFibers()
  const tokens = new WeakMap<Request, { readonly remoteAddress: string | undefined }>()

  const middleware = (app: HttpApp.Default): HttpApp.Default =>
    Effect.withFiberRuntime((fiber) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const token = tokens.get(request.source as Request)
        if (token === undefined) return app
        fibers.add(token, fiber)
        // The peer's address, which a Web `Request` does not carry (rate limits, sessions' `ip`).
        // Set on this request object, not a `modify`d copy: `toWebHandler` answers through the
        // very instance it created (a copy's answer never resolves its promise).
        if (token.remoteAddress !== undefined) {
          ;(request as unknown as { remoteAddressOverride?: string }).remoteAddressOverride = token.remoteAddress
        }
        return app
      }),
    )

  const wrap =
    (handler: (request: Request) => Promise<Response>, waitUntil: WaitUntil | undefined) =>
    async (request: Request, remoteAddress?: string): Promise<Response> => {
      const token = { remoteAddress }
      tokens.set(request, token)
      const response = await handler(request)
      const settled = () => fibers.settled(token)
      if (response.body === null) {
        if (waitUntil !== undefined) waitUntil(settled())
        else await settled()
        return response
      }
      // The body is passed through; its end waits for (or hands over) the request's work.
      const reader = response.body.getReader()
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read()
          if (!done) return controller.enqueue(value)
          if (waitUntil !== undefined) waitUntil(settled())
          else await settled()
          controller.close()
        },
        cancel: (reason) => {
          if (waitUntil !== undefined) waitUntil(settled())
          return reader.cancel(reason)
        },
      })
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    }

  return { supervisor: fibers, middleware, wrap }
}
