// The floor under Aide's chat figures: the least a server can do for the same chat on the same
// stack — node:http, the AI SDK's `streamText` over `@ai-sdk/openai-compatible`, the UI message
// stream as SSE, and the user's message and the answer written to SQLite (better-sqlite3, WAL) —
// with no authentication, no Effect, no validation, no memory, no titles, no resume. Speaks just
// enough of Aide's API for `bench/chat-outside.mjs` (setup, config, chat, the "listening" log
// line): `CHAT_OUTSIDE_SERVERS=packages/server/dist/main.js,bench/chat-floor-server.mjs`.
import { randomUUID } from "node:crypto"
import http from "node:http"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

// The packages come from the kernel's dependencies (pnpm does not hoist them to the root).
const kernel = createRequire(path.resolve(import.meta.dirname, "../packages/kernel/package.json"))
const load = (name) => import(pathToFileURL(kernel.resolve(name)).href)
const { streamText } = await load("ai")
const { createOpenAICompatible } = await load("@ai-sdk/openai-compatible")
const Database = kernel("better-sqlite3")

const model = createOpenAICompatible({
  name: "openai-compatible",
  baseURL: process.env.OPENAI_COMPATIBLE_BASE_URL,
  apiKey: process.env.OPENAI_COMPATIBLE_API_KEY,
}).chatModel("fake")

const db = new Database(path.join(process.env.AIDE_DATA_DIR ?? ".", "floor.db"))
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
db.exec(`CREATE TABLE IF NOT EXISTS messages (thread_id TEXT, id TEXT, seq INTEGER, role TEXT, parts TEXT,
  PRIMARY KEY (thread_id, id))`)
const history = db.prepare("SELECT role, parts FROM messages WHERE thread_id = ? ORDER BY seq")
const insert = db.prepare(`INSERT INTO messages VALUES (?, ?,
  (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = ?), ?, ?)`)
const save = (threadId, role, parts) => insert.run(threadId, randomUUID(), threadId, role, JSON.stringify(parts))

const readBody = async (req) => {
  let raw = ""
  for await (const chunk of req) raw += chunk
  return raw === "" ? {} : JSON.parse(raw)
}

const chat = async (req, res) => {
  const body = await readBody(req)
  const threadId = body.threadId ?? randomUUID()
  save(threadId, "user", body.parts)
  const messages = history.all(threadId).map(({ role, parts }) => ({
    role,
    content: JSON.parse(parts)
      .filter((part) => part.type === "text")
      .map((part) => part.text)
      .join(""),
  }))
  const result = streamText({ model, system: "You are Aide.", messages })
  const stream = result.toUIMessageStream({
    onFinish: ({ responseMessage }) => save(threadId, "assistant", responseMessage.parts),
  })
  res.writeHead(200, { "content-type": "text/event-stream", "x-thread-id": threadId })
  for await (const chunk of stream) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
  res.end("data: [DONE]\n\n")
}

const server = http.createServer((req, res) => {
  const reply = (status, value) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(JSON.stringify(value))
  }
  const route = `${req.method} ${req.url}`
  const handled =
    route === "POST /api/chat"
      ? chat(req, res)
      : route === "POST /api/auth/setup"
        ? readBody(req).then(() => reply(200, { token: "floor" }))
        : route === "PATCH /api/config"
          ? readBody(req).then(() => reply(200, {}))
          : Promise.resolve(reply(route === "GET /" ? 200 : 404, {}))
  handled.catch((error) => {
    if (!res.headersSent) reply(500, { error: String(error) })
    else res.destroy(error)
  })
})

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address()
  console.log(JSON.stringify({ message: "listening", annotations: { url: `http://${address}:${port}` } }))
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
