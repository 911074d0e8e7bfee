// bench/chat-effect-floor-server.mjs served from a plain HttpRouter instead of an HttpApi: a path of
// its own, so bench/chat-instructions.mjs and bench/chat-outside.mjs measure both in one run.
process.env.CHAT_EFFECT_FLOOR_ROUTER = "1"
await import("./chat-effect-floor-server.mjs")
