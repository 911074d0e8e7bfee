import { Config, type Option, type Redacted } from "effect"
import { parseTrustProxy, type TrustProxy } from "./http/ClientAddress.js"
import { parseCorsOrigins } from "./http/Cors.js"

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
  /** `AIDE_JWT_SECRET` (≥ 32 bytes): else generated into the data directory. */
  readonly jwtSecret: Option.Option<Redacted.Redacted<string>>
  /** `AIDE_TRUST_PROXY`: whether to believe `X-Forwarded-For` (see ClientAddress). */
  readonly trustProxy: TrustProxy
  /** `AIDE_MAX_BODY_BYTES`, default 1 MiB: larger request bodies get 413. */
  readonly maxBodyBytes: number
  /** `AIDE_MAX_CHAT_BODY_BYTES`, default 20 MiB: POST /api/chat, whose file parts are data URLs. */
  readonly chatMaxBodyBytes: number
  /** `AIDE_CORS_ORIGINS`: browser origins allowed to call the API (comma-separated, `*` for any); default none. */
  readonly corsOrigins?: ReadonlyArray<string>
  /** `AIDE_PUBLIC_URL`: base URL browsers reach this server at (OAuth callbacks); default `http://<HOST>:<PORT>`. */
  readonly publicUrl?: string | undefined
}

export const defaultMaxBodyBytes = 1024 * 1024
export const defaultChatMaxBodyBytes = 20 * 1024 * 1024

export const fromEnv: Config.Config<ServerConfig> = Config.all({
  port: Config.integer("PORT").pipe(Config.withDefault(4111)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  dataDir: Config.string("AIDE_DATA_DIR").pipe(Config.withDefault("./.aide")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  jwtSecret: Config.option(Config.redacted("AIDE_JWT_SECRET")),
  trustProxy: Config.string("AIDE_TRUST_PROXY").pipe(Config.withDefault(""), Config.map(parseTrustProxy)),
  maxBodyBytes: Config.integer("AIDE_MAX_BODY_BYTES").pipe(Config.withDefault(defaultMaxBodyBytes)),
  chatMaxBodyBytes: Config.integer("AIDE_MAX_CHAT_BODY_BYTES").pipe(Config.withDefault(defaultChatMaxBodyBytes)),
  corsOrigins: Config.string("AIDE_CORS_ORIGINS").pipe(Config.withDefault(""), Config.map(parseCorsOrigins)),
  publicUrl: Config.string("AIDE_PUBLIC_URL").pipe(
    Config.withDefault(""),
    Config.map((url) => (url === "" ? undefined : url.replace(/\/+$/, ""))),
  ),
})
