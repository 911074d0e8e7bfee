import { Effect, LogLevel, Runtime, type Scope } from "effect"
import * as UrlGuard from "../../mcp/UrlGuard.js"
import type { EgressOptions } from "../../net/Egress.js"
import { defaultLookup } from "../../net/Hosts.js"
import type { Permissions } from "../PluginManifest.js"
import * as BrokeredFetch from "./BrokeredFetch.js"
import type { ChildFailure } from "./Child.js"
import { decode, type PluginDescription } from "./Description.js"
import { defaultFetchLimits, type FetchLimits, limitFetches } from "./FetchLimiter.js"
import { resolveFsGrants } from "./FsGrants.js"
import { defaultLogRate, type LogRate, limitLogs } from "./LogLimiter.js"
import * as NetPolicy from "./NetPolicy.js"
import { PluginCallError, PluginStartError } from "./SandboxErrors.js"
import * as SocketBroker from "./SocketBroker.js"
import { defaultSocketLimits, type SocketLimits } from "./SocketLimits.js"
import { type Supervised, supervise } from "./Supervised.js"
import { type Backoff, defaultBackoff } from "./Supervisor.js"
import { defaultWatchdog, type WatchdogOptions, watch, supported as watchdogSupported } from "./Watchdog.js"

/**
 * A plugin's code running in a child process of its own (docs/plugin-sandbox.md): started,
 * asked, timed out, killed and restarted from here; the host's event loop never waits on it.
 *
 * @example
 * const plugin = yield* PluginProcess.start({ pluginId: "weather", directory, trust: "compartment", … })
 * const forecast = yield* plugin.callTool("forecast", { city: "Oslo" })
 */

export type { AgentDescription, ChannelDescription, PluginDescription, ToolDescription } from "./Description.js"
export { PluginCallError, PluginStartError } from "./SandboxErrors.js"

export interface PluginProcessOptions {
  readonly pluginId: string
  /** The plugin folder. */
  readonly directory: string
  readonly trust: "compartment" | "host"
  readonly entries: {
    readonly tools: ReadonlyArray<string>
    readonly agents: ReadonlyArray<string>
    readonly channels: ReadonlyArray<string>
  }
  /** From PluginManifest.ts, merged over the plugin's tool entries. */
  readonly permissions: Permissions
  /** Already filtered by the caller: the declared variables that are set. */
  readonly env: Readonly<Record<string, string>>
  readonly config: Readonly<Record<string, unknown>>
  /** A compartment's precompiled modules (loader/Precompile.ts): a folder the child may read. */
  readonly modules?: string
  readonly limits?: {
    readonly memoryMb?: number
    readonly callTimeoutMs?: number
    readonly outputBytes?: number
    readonly startTimeoutMs?: number
    /** RLIMIT_AS in MiB; default Containment.addressSpaceMb(memoryMb); `null` for none. */
    readonly addressSpaceMb?: number | null
    /** The CPU watchdog between calls (Watchdog.ts); `null` turns it off. */
    readonly watchdog?: Partial<WatchdogOptions> | null
    /** Plugin log lines let through per second (LogLimiter.ts). */
    readonly logRate?: Partial<LogRate>
    /** Brokered fetches in flight and per second (FetchLimiter.ts). */
    readonly fetch?: Partial<FetchLimits>
    /** A channel's brokered WebSockets and TCP/TLS sockets (SocketBroker.ts). */
    readonly sockets?: Partial<SocketLimits>
  }
  /** Restart delays; default 1 s doubling to 60 s (tests shorten them). */
  readonly backoff?: Partial<Backoff>
  /**
   * Tests pass allowHttp / allowedKinds / lookup / send to reach loopback. The brokered sockets
   * follow `allowedKinds`, `lookup`, and `allowHttp` (for `ws:`).
   */
  readonly egress?: Omit<EgressOptions, "allowedHosts">
  /** Certificate authorities the brokered TLS sockets trust instead of Node's (a private PKI; tests). */
  readonly tlsCa?: string | ReadonlyArray<string>
  /** child→host requests other than fetch (channel.receive, channel.answerApproval). */
  readonly onRequest?: (method: string, params: unknown) => Effect.Effect<unknown, PluginCallError>
}

export interface PluginProcess {
  /** The latest `init` answer (refreshed after a restart). */
  readonly description: Effect.Effect<PluginDescription>
  readonly callTool: (toolId: string, input: unknown, signal?: AbortSignal) => Effect.Effect<unknown, PluginCallError>
  /** `timeoutMs`: default the call timeout; `null` for none (`channel.start`). */
  readonly request: (
    method: string,
    params: unknown,
    options?: { readonly timeoutMs?: number | null; readonly signal?: AbortSignal },
  ) => Effect.Effect<unknown, PluginCallError>
  readonly pid: Effect.Effect<number | undefined>
}

const socketMethods = new Set([
  "ws.open",
  "ws.send",
  "socket.close",
  "net.connect",
  "net.write",
  "net.end",
  "net.startTls",
])

export const defaults = { memoryMb: 256, callTimeoutMs: 30_000, outputBytes: 1024 * 1024, startTimeoutMs: 15_000 }

export const start = (options: PluginProcessOptions): Effect.Effect<PluginProcess, PluginStartError, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const limits = { ...defaults, ...options.limits }
    // Bounded before anything else looks at a request; one bucket per plugin process, kept across
    // restarts. The broker sends all it is let in at once: a fetch is in flight or refused, never queued.
    // What the watchdog needs to tell "in a call" from "idle".
    let inFlight = 0
    let busySinceTick = false
    const fetchLimits = { ...defaultFetchLimits, ...options.limits?.fetch }
    const network = NetPolicy.resolve(options.permissions.network ?? [], options.config)
    // Hosts the owner typed into the plugin's settings may be on loopback or the LAN, and http:
    // (a homeserver beside Aide); an operator's own `egress` options (tests) take precedence.
    const owner = NetPolicy.ownerChosen(network.entries, (url) =>
      UrlGuard.hostKinds(url, options.egress?.lookup ?? defaultLookup),
    )
    const egress = {
      allowedKinds: owner.allowedKinds,
      allowHttp: owner.allowPlain,
      ...options.egress,
    }
    const brokered = BrokeredFetch.make(network.entries, {
      concurrency: fetchLimits.inFlight,
      ...egress,
    })
    const sockets = yield* Effect.acquireRelease(
      Effect.sync(() =>
        SocketBroker.make(
          {
            entries: network.entries,
            allowPlain: egress.allowHttp ?? false,
            policy: {
              allowedKinds: NetPolicy.kindsOf(egress.allowedKinds),
              lookup: options.egress?.lookup ?? defaultLookup,
            },
            ca: options.tlsCa,
          },
          { ...defaultSocketLimits, ...options.limits?.sockets },
          // A socket's events are work the host hands the plugin, like a call.
          () => {
            busySinceTick = true
          },
        ),
      ),
      (broker) => Effect.sync(() => broker.closeAll()),
    )
    const fetch = yield* Effect.acquireRelease(
      Effect.sync(() => limitFetches(fetchLimits, brokered)),
      (limited) => Effect.sync(() => limited.close()),
    )
    const write = (level: string, message: string, data?: unknown) =>
      Runtime.runFork(runtime)(
        Effect.logWithLevel(levelOf(level), message, ...(data === undefined ? [] : [data])).pipe(
          Effect.annotateLogs({ plugin: options.pluginId, trust: options.trust }),
        ),
      )
    const limited = yield* Effect.acquireRelease(
      Effect.sync(() => limitLogs({ ...defaultLogRate, ...options.limits?.logRate }, write)),
      (limited) => Effect.sync(() => limited.close()),
    )
    const log = limited.write
    for (const entry of network.skipped)
      write("warn", `network ${entry} grants nothing: the setting is empty or not a host`)
    // fs grants resolved once, here, for both the permission layer and the compartment's `fs`.
    const grants = yield* Effect.promise(() => resolveFsGrants(options.directory, options.permissions.fs ?? []))
    for (const grant of grants.missing) write("warn", `fs grant ${grant} does not exist: it grants nothing`)
    const { fs: _declared, ...otherPermissions } = options.permissions
    const permissions = grants.fs.length === 0 ? otherPermissions : { ...otherPermissions, fs: grants.fs }
    const supervisedOptions: PluginProcessOptions = { ...options, permissions }
    const handle = (method: string, params: unknown, signal: AbortSignal, peer: SocketBroker.Peer) => {
      if (method === "fetch") return fetch.handle(params, signal)
      if (socketMethods.has(method)) return sockets.handle(method, params, signal, peer)
      if (options.onRequest === undefined) return Promise.reject(new Error(`${method} is not available`))
      return Runtime.runPromise(runtime)(options.onRequest(method, params), { signal })
    }
    const supervised: Supervised = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          supervise({
            options: supervisedOptions,
            limits,
            backoff: { ...defaultBackoff, ...options.backoff },
            handle,
            released: sockets.closePeer,
            log,
            decode: (value) => Runtime.runPromise(runtime)(decode(value)),
          }),
        catch: (error) =>
          new PluginStartError({
            pluginId: options.pluginId,
            message: `plugin ${options.pluginId} did not start: ${error instanceof Error ? error.message : String(error)}`,
          }),
      }),
      (supervised) => Effect.sync(() => supervised.close()),
    )
    const toError = (method: string) => (failure: unknown) => {
      const known = failure as Partial<ChildFailure> & { readonly restarting?: boolean }
      return new PluginCallError({
        pluginId: options.pluginId,
        method,
        reason: known.restarting === true ? "restarting" : (known.reason ?? "failed"),
        message: `plugin ${options.pluginId}: ${known.message ?? String(failure)}`,
      })
    }
    const watchdog = options.limits?.watchdog
    if (watchdog !== null) {
      if (!watchdogSupported) write("warn", "no CPU watchdog between calls on this platform (it reads /proc)")
      const stop = watch(
        {
          pid: () => supervised.pid(),
          busySinceLastTick: () => {
            const busy = busySinceTick || inFlight > 0
            busySinceTick = false
            return busy
          },
          kill: (pid, reason) => {
            write("warn", `plugin process killed by the CPU watchdog: ${reason}`)
            try {
              process.kill(pid, "SIGKILL")
            } catch {
              // Already gone.
            }
          },
        },
        { ...defaultWatchdog, ...watchdog },
      )
      yield* Effect.addFinalizer(() => Effect.sync(stop))
    }
    const request: PluginProcess["request"] = (method, params, callOptions) =>
      Effect.async<unknown, PluginCallError>((resume) => {
        const controller = new AbortController()
        const signal =
          callOptions?.signal === undefined
            ? controller.signal
            : AbortSignal.any([controller.signal, callOptions.signal])
        const timeoutMs = callOptions?.timeoutMs === undefined ? limits.callTimeoutMs : callOptions.timeoutMs
        // A call with a deadline may use the CPU (its timeout bounds it); one without may not.
        const timed = timeoutMs !== null
        if (timed) {
          inFlight += 1
          busySinceTick = true
        }
        const done = () => {
          if (timed) inFlight -= 1
        }
        supervised.request(method, params, timeoutMs, signal).then(
          (value) => {
            done()
            resume(Effect.succeed(value))
          },
          (failure) => {
            done()
            resume(Effect.fail(toError(method)(failure)))
          },
        )
        // Interrupting the fiber cancels the call in the child too.
        return Effect.sync(() => controller.abort())
      })
    return {
      description: Effect.sync(() => supervised.description()),
      callTool: (toolId, input, signal) =>
        request("tool.call", { toolId, input }, signal === undefined ? undefined : { signal }),
      request,
      pid: Effect.sync(() => supervised.pid()),
    }
  })

const levelOf = (level: string) =>
  level === "error"
    ? LogLevel.Error
    : level === "warn"
      ? LogLevel.Warning
      : level === "debug"
        ? LogLevel.Debug
        : LogLevel.Info
