/**
 * Existing HTTP suites that need no live stream, run again against `Server.webHandler` in
 * serverless mode behind Node's http adapter (support/server.ts reads `AIDE_TEST_MODE`). Their
 * `describe` blocks register in this file as they are imported.
 */
process.env.AIDE_TEST_MODE = "serverless"

await import("./auth-setup-login.test.js")
await import("./auth-refresh.test.js")
await import("./auth-sessions.test.js")
await import("./auth-change-password.test.js")
await import("./config.test.js")
await import("./models.test.js")
await import("./memory.test.js")
await import("./protected-endpoints.test.js")
