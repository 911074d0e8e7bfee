/**
 * @aide/kernel/net — outbound HTTP with an egress policy (Egress) and its errors.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as Egress from "./net/Egress.js"
export * as EgressErrors from "./net/EgressErrors.js"
