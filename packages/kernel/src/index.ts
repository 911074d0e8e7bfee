/**
 * @aide/kernel — the services and Layers of the Aide assistant. Each area is a namespace:
 * `Auth.Auth` is the service tag, `Auth.layer` its default Layer.
 */
export * as AccessTokens from "./auth/AccessTokens.js"
export * as Auth from "./auth/Auth.js"
export * as AuthConfig from "./auth/AuthConfig.js"
export * as AuthErrors from "./auth/AuthErrors.js"
export * as AuthModel from "./auth/AuthModel.js"
export * as AuthStore from "./auth/AuthStore.js"
export * as PasswordHasher from "./auth/PasswordHasher.js"
export * as SigningSecret from "./auth/SigningSecret.js"
export * as SqlAuthStore from "./auth/SqlAuthStore.js"
export * as Ids from "./ids/Ids.js"
export * as Kernel from "./Kernel.js"
export * as RateLimiter from "./ratelimit/RateLimiter.js"
export * as Migrations from "./storage/migrations.js"
export * as SqliteStorage from "./storage/SqliteStorage.js"
export * as StorageError from "./storage/StorageError.js"
