import { Schema } from "effect"

/** Setup was called although a password exists. */
export class AlreadySetup extends Schema.TaggedError<AlreadySetup>()("AlreadySetup", {}) {}

/** Login before any password was set up. */
export class SetupRequired extends Schema.TaggedError<SetupRequired>()("SetupRequired", {}) {}

/**
 * Wrong password. Also used for every other login failure (e.g. an over-long password) so that
 * nobody can tell the cases apart.
 */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {}) {}

/** A new password breaks the rules (too short or too long); `message` says which. */
export class InvalidPassword extends Schema.TaggedError<InvalidPassword>()("InvalidPassword", {
  message: Schema.String,
}) {}

/** A refresh token that is unknown, expired, already rotated, or whose session is revoked. */
export class InvalidRefreshToken extends Schema.TaggedError<InvalidRefreshToken>()("InvalidRefreshToken", {}) {}

/** An access token that is missing, invalid, expired, or whose session is revoked. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {}) {}

/** No active session has this id. */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  id: Schema.String,
}) {}

/**
 * Passwords, token refresh and sessions are the host application's (`HostAuth`): Aide only
 * verifies the host's tokens. The server answers 403 `auth_external`.
 */
export class AuthExternal extends Schema.TaggedError<AuthExternal>()("AuthExternal", {}) {
  override get message() {
    return "Sign-in is managed by the host application: Aide has no password or sessions of its own"
  }
}
