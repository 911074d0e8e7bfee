import { Context, Duration, Layer } from "effect"

/** Lifetimes and password rules of the `Auth` service. */
export interface AuthSettings {
  /** Access token lifetime (SPEC: 15 minutes). */
  readonly accessTokenTtl: Duration.Duration
  /** Refresh token lifetime, renewed by every rotation (SPEC: 7 days). */
  readonly refreshTokenTtl: Duration.Duration
  /** Shortest accepted password (SPEC: 8). */
  readonly minPasswordLength: number
  /** Longest accepted password: a cap so nobody can make the server hash megabytes. */
  readonly maxPasswordLength: number
  /** `iss` of our access tokens. */
  readonly issuer: string
  /** `aud` of our access tokens. */
  readonly audience: string
}

export class AuthConfig extends Context.Tag("@aide/kernel/AuthConfig")<AuthConfig, AuthSettings>() {}

export const defaults: AuthSettings = {
  accessTokenTtl: Duration.minutes(15),
  refreshTokenTtl: Duration.days(7),
  minPasswordLength: 8,
  maxPasswordLength: 1024,
  issuer: "aide",
  audience: "aide-api",
}

/** `AuthConfig` from the defaults, overridden by `settings`. */
export const layer = (settings: Partial<AuthSettings> = {}): Layer.Layer<AuthConfig> =>
  Layer.succeed(AuthConfig, { ...defaults, ...settings })
