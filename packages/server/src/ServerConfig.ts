import { Config, ConfigError, Either, Option, Redacted } from "effect"
import { secretProblem } from "./http/BearerGate.js"
import { parseTrustProxy, type TrustProxy } from "./http/ClientAddress.js"
import { parseCorsOrigins } from "./http/Cors.js"
import { parseAllowedHosts } from "./http/HostCheck.js"

/** How the process is configured; every field has an environment variable (see docs/configuration.md). */
export interface ServerConfig {
  /** `PORT`, default 4111; 0 picks a free port. */
  readonly port: number
  /** `HOST`, default 127.0.0.1. */
  readonly host: string
  /** `AIDE_DATA_DIR`, default `./.aide`: SQLite database and generated signing secret. */
  readonly dataDir: string
  /** `DATABASE_URL`: PostgreSQL instead of SQLite. */
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** `REDIS_URL`: live chat streams, rate limits and replica signals in Redis (scale-out). */
  readonly redisUrl?: Option.Option<Redacted.Redacted<string>> | undefined
  /** `AIDE_REDIS_PREFIX`, default `aide:`: prepended to every Redis key and channel. */
  readonly redisKeyPrefix?: string | undefined
  /** `AIDE_REPLICAS`: `one` (default) or `many`, which needs `DATABASE_URL` and `REDIS_URL`. */
  readonly replicas?: "one" | "many" | undefined
  /** `AIDE_JWT_SECRET` (≥ 32 bytes): else generated into the data directory. */
  readonly jwtSecret: Option.Option<Redacted.Redacted<string>>
  /** `AIDE_TRUST_PROXY`: how many proxy hops of `X-Forwarded-For` to believe (see ClientAddress). */
  readonly trustProxy: TrustProxy
  /** `AIDE_MAX_BODY_BYTES`, default 1 MiB: larger request bodies get 413. */
  readonly maxBodyBytes: number
  /** `AIDE_MAX_CHAT_BODY_BYTES`, default 20 MiB: POST /api/chat, whose file parts are data URLs. */
  readonly chatMaxBodyBytes: number
  /** `AIDE_CORS_ORIGINS`: browser origins allowed to call the API (comma-separated, `*` for any); default none. */
  readonly corsOrigins?: ReadonlyArray<string>
  /** `AIDE_ALLOWED_HOSTS`: host names served besides loopback, IP literals, HOST and AIDE_PUBLIC_URL's (`*`: any). */
  readonly allowedHosts?: ReadonlyArray<string>
  /** `AIDE_PUBLIC_URL`: base URL browsers reach this server at (OAuth callbacks); default `http://<HOST>:<PORT>`. */
  readonly publicUrl?: string | undefined
  /** `AIDE_RUN_MAX_ANSWER_BYTES`, default 1 MiB: a chat answer is cut (and kept) at this size. */
  readonly runMaxAnswerBytes?: number | undefined
  /** `AIDE_RUN_IDLE_TIMEOUT` in seconds, default 120: a chat run whose model is silent this long is cut. */
  readonly runIdleTimeoutSeconds?: number | undefined
  /** `AIDE_STREAM_MAX_SUBSCRIBERS_PER_STREAM`, default 1,000: more reconnects to one chat stream get 429. */
  readonly streamMaxSubscribersPerStream?: number | undefined
  /** `AIDE_STREAM_MAX_SUBSCRIBERS`, default 10,000: more reconnects over all chat streams get 503. */
  readonly streamMaxSubscribers?: number | undefined
  /** `AIDE_HEADERS_TIMEOUT` in seconds, default 15: a request's headers must arrive within it (else 408). */
  readonly headersTimeoutSeconds?: number | undefined
  /** `AIDE_REQUEST_TIMEOUT` in seconds, default 120: a whole request (headers and body) must arrive within it. */
  readonly requestTimeoutSeconds?: number | undefined
  /** `AIDE_PUBLIC_BODY_TIMEOUT` in seconds, default 10: the body of a public route (`/wh/`, `/api/auth/`). */
  readonly publicBodyTimeoutSeconds?: number | undefined
  /** `AIDE_PUBLIC_MAX_REQUESTS_PER_CLIENT`, default 10: open requests of one client on the public routes. */
  readonly publicMaxRequestsPerClient?: number | undefined
  /** `AIDE_DATABASE_TIMEOUT` in seconds, default 5 (PostgreSQL only): longest wait for a connection before a 503. */
  readonly databaseTimeoutSeconds?: number | undefined
  /** `AIDE_LEASE_TTL` in seconds, default 5 (PostgreSQL only): how long a dead replica's leases outlive it. */
  readonly leaseTtlSeconds?: number | undefined
  /** `AIDE_CRON_SECRET` (≥ 32 bytes): Bearer of the serverless run-due trigger (an owner's token also works). */
  readonly cronSecret?: Option.Option<Redacted.Redacted<string>>
  /** `AIDE_METRICS_TOKEN` (≥ 32 bytes): Bearer of `GET /metrics` for scrapers (an owner's token also works). */
  readonly metricsToken?: Option.Option<Redacted.Redacted<string>>
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: export traces over OTLP/HTTP to this collector (default: no tracing). */
  readonly otlpEndpoint?: string | undefined
  /** `OTEL_SERVICE_NAME`, default `aide`: the traces' `service.name`. */
  readonly otelServiceName?: string | undefined
  /** `AIDE_PLUGINS_PATH`: absolute plugin folders (or folders of them), `:`-separated, besides `<dataDir>/plugins`. */
  readonly pluginsPath?: ReadonlyArray<string> | undefined
}

export const defaultMaxBodyBytes = 1024 * 1024
export const defaultChatMaxBodyBytes = 20 * 1024 * 1024

/**
 * PostgreSQL is the only database a URL can name (SQLite is the default, without one). Checked
 * here, so `mysql://…` or a typo is refused with its reason instead of a DNS error later; the
 * message never repeats the URL (it may hold a password).
 */
const checkDatabaseUrl = (url: string) => {
  const expected = "expected postgres://user:password@host:5432/database, or unset it for SQLite"
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    return Either.left(ConfigError.InvalidData([], `DATABASE_URL is not a URL (${expected})`))
  }
  return protocol === "postgres:" || protocol === "postgresql:"
    ? Either.right(url)
    : Either.left(
        ConfigError.InvalidData(
          [],
          `DATABASE_URL names a ${protocol.slice(0, -1)} database; Aide supports PostgreSQL only (${expected})`,
        ),
      )
}

/** Like `checkDatabaseUrl`: a Redis URL, never repeated in the message. */
const checkRedisUrl = (url: string) => {
  const expected = "expected redis://[:password@]host:6379[/db] or rediss://… (TLS)"
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    return Either.left(ConfigError.InvalidData([], `REDIS_URL is not a URL (${expected})`))
  }
  return protocol === "redis:" || protocol === "rediss:"
    ? Either.right(url)
    : Either.left(ConfigError.InvalidData([], `REDIS_URL names a ${protocol.slice(0, -1)} server (${expected})`))
}

/**
 * Several replicas share state only through PostgreSQL and Redis: a replica on SQLite, or
 * without Redis, would silently keep its own (the mode is explicit: a replica count cannot be
 * guessed). The reason why the start is refused, or none.
 */
export const replicasProblem = (config: Pick<ServerConfig, "replicas" | "databaseUrl" | "redisUrl">) => {
  if (config.replicas !== "many") return undefined
  if (Option.isNone(config.databaseUrl)) {
    return "AIDE_REPLICAS=many needs DATABASE_URL (PostgreSQL): SQLite belongs to one process; unset AIDE_REPLICAS to run one replica on SQLite"
  }
  if (config.redisUrl === undefined || Option.isNone(config.redisUrl)) {
    return "AIDE_REPLICAS=many needs REDIS_URL: live chat streams, rate limits and revocations are shared through Redis"
  }
  return undefined
}

/**
 * A Bearer secret short enough to guess (`"a"`) would guard the trigger and the metrics in
 * name only: refused at start, as a short `AIDE_JWT_SECRET` is. The reason, or none.
 */
export const secretsProblem = (config: Pick<ServerConfig, "cronSecret" | "metricsToken">) =>
  secretProblem("AIDE_CRON_SECRET", config.cronSecret) ?? secretProblem("AIDE_METRICS_TOKEN", config.metricsToken)

/** An optional secret of at least `minimumSecretBytes`; the message names it, never its value. */
const bearerSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.mapOrFail((secret) => {
      const problem = secretProblem(name, secret)
      return problem === undefined ? Either.right(secret) : Either.left(ConfigError.InvalidData([], problem))
    }),
  )

const positive = { message: "must be a positive number", validation: (n: number) => n > 0 }

const fields = Config.all({
  port: Config.integer("PORT").pipe(Config.withDefault(4111)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  dataDir: Config.string("AIDE_DATA_DIR").pipe(Config.withDefault("./.aide")),
  databaseUrl: Config.option(
    Config.string("DATABASE_URL").pipe(Config.mapOrFail(checkDatabaseUrl), Config.map(Redacted.make)),
  ),
  redisUrl: Config.option(Config.string("REDIS_URL").pipe(Config.mapOrFail(checkRedisUrl), Config.map(Redacted.make))),
  redisKeyPrefix: Config.string("AIDE_REDIS_PREFIX").pipe(Config.withDefault("aide:")),
  replicas: Config.literal("one", "many")("AIDE_REPLICAS").pipe(Config.withDefault("one" as const)),
  jwtSecret: Config.option(Config.redacted("AIDE_JWT_SECRET")),
  cronSecret: bearerSecret("AIDE_CRON_SECRET"),
  metricsToken: bearerSecret("AIDE_METRICS_TOKEN"),
  otlpEndpoint: Config.option(Config.url("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(
    Config.map(Option.map((url) => url.href)),
    Config.map(Option.getOrUndefined),
  ),
  otelServiceName: Config.option(Config.string("OTEL_SERVICE_NAME")).pipe(Config.map(Option.getOrUndefined)),
  trustProxy: Config.string("AIDE_TRUST_PROXY").pipe(Config.withDefault(""), Config.mapAttempt(parseTrustProxy)),
  maxBodyBytes: Config.integer("AIDE_MAX_BODY_BYTES").pipe(Config.withDefault(defaultMaxBodyBytes)),
  chatMaxBodyBytes: Config.integer("AIDE_MAX_CHAT_BODY_BYTES").pipe(Config.withDefault(defaultChatMaxBodyBytes)),
  corsOrigins: Config.string("AIDE_CORS_ORIGINS").pipe(Config.withDefault(""), Config.map(parseCorsOrigins)),
  allowedHosts: Config.string("AIDE_ALLOWED_HOSTS").pipe(Config.withDefault(""), Config.map(parseAllowedHosts)),
  runMaxAnswerBytes: Config.option(Config.integer("AIDE_RUN_MAX_ANSWER_BYTES").pipe(Config.validate(positive))).pipe(
    Config.map(Option.getOrUndefined),
  ),
  runIdleTimeoutSeconds: Config.option(Config.number("AIDE_RUN_IDLE_TIMEOUT").pipe(Config.validate(positive))).pipe(
    Config.map(Option.getOrUndefined),
  ),
  streamMaxSubscribersPerStream: Config.option(
    Config.integer("AIDE_STREAM_MAX_SUBSCRIBERS_PER_STREAM").pipe(Config.validate(positive)),
  ).pipe(Config.map(Option.getOrUndefined)),
  streamMaxSubscribers: Config.option(
    Config.integer("AIDE_STREAM_MAX_SUBSCRIBERS").pipe(Config.validate(positive)),
  ).pipe(Config.map(Option.getOrUndefined)),
  headersTimeoutSeconds: Config.option(Config.number("AIDE_HEADERS_TIMEOUT").pipe(Config.validate(positive))).pipe(
    Config.map(Option.getOrUndefined),
  ),
  requestTimeoutSeconds: Config.option(Config.number("AIDE_REQUEST_TIMEOUT").pipe(Config.validate(positive))).pipe(
    Config.map(Option.getOrUndefined),
  ),
  publicBodyTimeoutSeconds: Config.option(
    Config.number("AIDE_PUBLIC_BODY_TIMEOUT").pipe(Config.validate(positive)),
  ).pipe(Config.map(Option.getOrUndefined)),
  publicMaxRequestsPerClient: Config.option(
    Config.integer("AIDE_PUBLIC_MAX_REQUESTS_PER_CLIENT").pipe(Config.validate(positive)),
  ).pipe(Config.map(Option.getOrUndefined)),
  publicUrl: Config.string("AIDE_PUBLIC_URL").pipe(
    Config.withDefault(""),
    Config.map((url) => (url === "" ? undefined : url.replace(/\/+$/, ""))),
  ),
  databaseTimeoutSeconds: Config.option(Config.number("AIDE_DATABASE_TIMEOUT").pipe(Config.validate(positive))).pipe(
    Config.map(Option.getOrUndefined),
  ),
  leaseTtlSeconds: Config.option(Config.number("AIDE_LEASE_TTL").pipe(Config.validate(positive))).pipe(
    Config.map(Option.getOrUndefined),
  ),
  pluginsPath: Config.string("AIDE_PLUGINS_PATH").pipe(
    Config.withDefault(""),
    Config.map((value) => value.split(":").filter((entry) => entry.trim() !== "")),
    // Never the working directory by accident: a relative entry is refused, not resolved.
    Config.validate({
      message: "AIDE_PLUGINS_PATH entries must be absolute paths, separated by ':'",
      validation: (entries) => entries.every((entry) => entry.startsWith("/")),
    }),
  ),
})

export const fromEnv: Config.Config<ServerConfig> = fields.pipe(
  Config.mapOrFail((config) => {
    const problem = replicasProblem(config)
    return problem === undefined ? Either.right(config) : Either.left(ConfigError.InvalidData([], problem))
  }),
)
