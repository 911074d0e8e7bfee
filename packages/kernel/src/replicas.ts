/**
 * @aide/kernel/replicas — what replicas share: the Leases, ReplicaSignals and ThreadClaims Tags (their PostgreSQL Layers are in `@aide/kernel/postgres`).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as Leases from "./replicas/Leases.js"
export * as ReplicaSignals from "./replicas/ReplicaSignals.js"
export * as ThreadClaims from "./replicas/ThreadClaims.js"
