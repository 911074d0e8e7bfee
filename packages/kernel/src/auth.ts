/**
 * @aide/kernel/auth — owner authentication: the Auth service, access tokens, password hashing, the auth store and its SQL and in-memory Layers.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as AccessTokens from "./auth/AccessTokens.js"
export * as Auth from "./auth/Auth.js"
export * as AuthConfig from "./auth/AuthConfig.js"
export * as AuthErrors from "./auth/AuthErrors.js"
export * as AuthModel from "./auth/AuthModel.js"
export * as AuthStore from "./auth/AuthStore.js"
export * as HostAuth from "./auth/HostAuth.js"
export * as MemoryAuthStore from "./auth/MemoryAuthStore.js"
export * as PasswordHasher from "./auth/PasswordHasher.js"
export * as SigningSecret from "./auth/SigningSecret.js"
export * as SqlAuthStore from "./auth/SqlAuthStore.js"
