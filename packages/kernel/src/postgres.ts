/**
 * @aide/kernel/postgres — the PostgreSQL storage Layer, a separate entry so that servers on the
 * SQLite default never load the PostgreSQL driver.
 */

export * as PgLeases from "./replicas/PgLeases.js"
export * as PgReplicaSignals from "./replicas/PgReplicaSignals.js"
export * as PgThreadClaims from "./replicas/PgThreadClaims.js"
export * as PostgresStorage from "./storage/PostgresStorage.js"
