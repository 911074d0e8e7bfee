/**
 * @aide/server — Aide's HTTP API as Layers: run it with `aide-server`, or build `Server.layer`
 * inside your own Effect program.
 */

export { AideApi } from "./api/AideApi.js"
export * as ApiErrors from "./api/ApiErrors.js"
export * as ClientAddress from "./http/ClientAddress.js"
export * as Server from "./Server.js"
export * as ServerConfig from "./ServerConfig.js"
export * as NodeAdapter from "./serverless/NodeAdapter.js"
export { version } from "./version.js"
