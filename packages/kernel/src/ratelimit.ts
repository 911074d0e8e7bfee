/**
 * @aide/kernel/ratelimit — rate limits (the RateLimiter service and its in-memory Layer).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as RateLimiter from "./ratelimit/RateLimiter.js"
