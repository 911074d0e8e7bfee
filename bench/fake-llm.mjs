// A copy of /work/shared/outside-bench/fake-llm.mjs (the outside measurement's model), for bench/chat-outside.mjs.
// A scripted OpenAI-compatible chat-completions server on loopback, for black-box checks.
// Reply rules (last user message text):
//   "CALL <tool> <json-args>"  -> one tool call ("~suffix" matches a tool name ending so), then (after the tool result) "tool done"
//   "SLOW <n>"                 -> n tokens, 100 ms apart
//   "ECHO SYSTEM"              -> the system prompt it was given, as one token
//   "ECHO ALL ..."             -> every message it was given (system included) as JSON, one token
//   anything else              -> "Hello from the fake model." (6 tokens)
// Title/other requests (no user text) get a short reply. Usage: node fake-llm.mjs [port]
import http from "node:http"

const port = Number(process.argv[2] ?? 0)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function lastUserText(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m.role === "tool") return { afterTool: true, text: "" }
    if (m.role === "user") {
      const c = m.content
      const text =
        typeof c === "string"
          ? c
          : (c ?? [])
              .filter((p) => p.type === "text")
              .map((p) => p.text)
              .join("")
      return { afterTool: false, text }
    }
  }
  return { afterTool: false, text: "" }
}

function plan(body) {
  const { afterTool, text } = lastUserText(body.messages ?? [])
  if (afterTool) return { tokens: ["tool ", "done"] }
  const call = /^CALL (\S+) (.*)$/s.exec(text.trim())
  if (call) {
    const names = (body.tools ?? []).map((t) => t.function?.name ?? t.name)
    const want = call[1]
    const name = want.startsWith("~") ? names.find((n) => n?.endsWith(want.slice(1))) : names.find((n) => n === want)
    if (name) return { tool: { name, args: call[2] } }
    return { tokens: [`no tool ${want} among: ${names.join(",")}`] }
  }
  if (text.trim() === "ECHO SYSTEM") {
    const sys = (body.messages ?? [])
      .filter((m) => m.role === "system")
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
      .join("\n")
    return { tokens: [sys || "(no system prompt)"] }
  }
  if (/^ECHO ALL\b/.test(text.trim())) return { tokens: [JSON.stringify(body.messages ?? [])] }
  const slow = /^SLOW (\d+)/.exec(text.trim())
  if (slow) return { tokens: Array.from({ length: Number(slow[1]) }, (_, i) => `t${i} `), delay: 100 }
  if (!text) return { tokens: ["Fake ", "title"] }
  return { tokens: ["Hello ", "from ", "the ", "fake ", "model", "."] }
}

const server = http.createServer(async (req, res) => {
  let raw = ""
  for await (const c of req) raw += c
  if (req.method === "GET" && req.url.endsWith("/models")) {
    res.writeHead(200, { "content-type": "application/json" })
    return res.end(JSON.stringify({ object: "list", data: [{ id: "fake", object: "model" }] }))
  }
  if (!req.url.endsWith("/chat/completions")) {
    res.writeHead(404)
    return res.end()
  }
  const body = JSON.parse(raw || "{}")
  const p = plan(body)
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`
  const base = {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "fake",
  }
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" })
    const message = p.tool
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: p.tool.name, arguments: p.tool.args } }],
        }
      : { role: "assistant", content: p.tokens.join("") }
    return res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created: base.created,
        model: base.model,
        choices: [{ index: 0, message, finish_reason: p.tool ? "tool_calls" : "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 },
      }),
    )
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  const send = (o) => res.write(`data: ${JSON.stringify({ ...base, ...o })}\n\n`)
  send({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })
  if (p.tool) {
    send({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: "call_1", type: "function", function: { name: p.tool.name, arguments: p.tool.args } },
            ],
          },
          finish_reason: null,
        },
      ],
    })
    send({
      choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    })
  } else {
    for (const t of p.tokens) {
      if (p.delay) await sleep(p.delay)
      if (res.destroyed) return
      send({ choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })
    }
    send({
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: p.tokens.length, total_tokens: 10 + p.tokens.length },
    })
  }
  res.write("data: [DONE]\n\n")
  res.end()
})
server.listen(port, "127.0.0.1", () => console.log(server.address().port))
