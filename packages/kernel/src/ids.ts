/**
 * @aide/kernel/ids — identifiers and random secrets (the Ids service).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as Ids from "./ids/Ids.js"
