import { Schema } from "effect"

/** Returned by setup, login, refresh and change-password. Dates encode as ISO 8601 strings. */
export const TokenPair = Schema.Struct({
  token: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.Date,
  refreshExpiresAt: Schema.Date,
}).annotations({ identifier: "TokenPair" })
export type TokenPair = typeof TokenPair.Type

/** A device signed in to the server. */
export const Session = Schema.Struct({
  id: Schema.String,
  createdAt: Schema.Date,
  expiresAt: Schema.Date,
  userAgent: Schema.String,
  ip: Schema.String,
  current: Schema.Boolean,
}).annotations({ identifier: "Session" })
export type Session = typeof Session.Type

/** Where a request came from; recorded on the session it creates. */
export interface ClientInfo {
  readonly userAgent: string
  readonly ip: string
}

/** The caller behind a verified access token. */
export interface Principal {
  readonly sessionId: string
}
