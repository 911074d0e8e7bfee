#!/usr/bin/env node
// Run bounds (issue 9, item 9): the RSS of the server against a model that streams for ever.
// Each chat is cut at the answer limit (AIDE_RUN_MAX_ANSWER_BYTES, default 1 MiB); RSS must stay
// flat over many such runs, and the stored message holds exactly the limit.
//
//   node bench/run-bounds.mjs            # env RUNS [20], MAX_BYTES [default of the server]
//
// Needs the bundled server (packages/server/dist). The endless model is inline: an
// OpenAI-compatible SSE endpoint that writes text deltas, honouring back-pressure, until the
// client hangs up.

import * as http from "node:http"
import {
  log,
  removeDir,
  request,
  round,
  rssMiB,
  setUp,
  sse,
  startServer,
  table,
  tmpDir,
  watchPeakRss,
  writeResults,
} from "./harness.mjs"

const runs = Number(process.env.RUNS ?? 20)
const maxBytes = process.env.MAX_BYTES
/** `SAME_THREAD=1`: every run continues one thread (its history grows by the limit per run). */
const sameThread = process.env.SAME_THREAD === "1"

/** Bytes the model wrote per request (what the server read from the provider, roughly). */
const modelBytes = []
const delta = "All work and no play makes Jack a dull boy. "
const endless = http.createServer((req, res) => {
  req.resume()
  req.on("end", () => {
    if (!req.url?.startsWith("/v1/chat/completions")) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { "content-type": "text/event-stream" })
    const frame = `data: ${JSON.stringify({
      id: "chatcmpl-endless",
      object: "chat.completion.chunk",
      created: 0,
      model: "fake",
      choices: [{ index: 0, delta: { content: delta }, finish_reason: null }],
    })}\n\n`
    let open = true
    res.on("close", () => {
      open = false
      modelBytes.push(written)
    })
    let written = 0
    const pump = () => {
      while (open) {
        written += frame.length
        if (!res.write(frame)) return void res.once("drain", pump)
      }
    }
    pump()
  })
})
await new Promise((resolve) => endless.listen(0, "127.0.0.1", resolve))
const modelUrl = `http://127.0.0.1:${endless.address().port}/v1`

const dataDir = tmpDir("aide-bench-bounds-")
const server = await startServer({
  dataDir,
  nodeArgs: (process.env.NODE_ARGS ?? "").split(" ").filter(Boolean),
  env: {
    OPENAI_COMPATIBLE_BASE_URL: modelUrl,
    ...(maxBytes === undefined ? {} : { AIDE_RUN_MAX_ANSWER_BYTES: maxBytes }),
  },
})
try {
  const token = await setUp(server.url)
  const rows = []
  const startRss = rssMiB(server.pid)
  const peak = watchPeakRss(server.pid)
  let threadId
  for (let run = 1; run <= runs; run++) {
    let textBytes = 0
    let errorText = ""
    const result = await sse(`${server.url}/api/chat`, {
      headers: { authorization: `Bearer ${token}` },
      body: {
        parts: [{ type: "text", text: "Write for ever" }],
        ...(threadId === undefined || !sameThread ? {} : { threadId }),
      },
      onEvent: (data) => {
        if (data === "[DONE]") return
        const chunk = JSON.parse(data)
        if (chunk.type === "text-delta") textBytes += Buffer.byteLength(chunk.delta)
        if (chunk.type === "error") errorText = chunk.errorText
      },
    })
    if (sameThread || threadId === undefined) threadId = result.headers["x-thread-id"]
    if (run === 1 || run % 5 === 0 || run === runs) {
      rows.push([
        run,
        round(textBytes / 1024, 1),
        round((modelBytes.at(-1) ?? 0) / 1024 / 1024, 1),
        round(result.ms, 0),
        round(rssMiB(server.pid), 1),
        errorText,
      ])
    }
  }
  const detail = await request(server.url, { path: `/api/threads/${threadId}`, token })
  const stored = detail.body.messages
    .filter((message) => message.role === "assistant")
    .map((message) =>
      message.parts.filter((part) => part.type === "text").reduce((n, part) => n + Buffer.byteLength(part.text), 0),
    )
  // The hub keeps each finished stream 60 s for reconnects (SPEC): RSS after that is what stays.
  const settleSeconds = Number(process.env.SETTLE_SECONDS ?? 0)
  if (settleSeconds > 0) await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000))
  const summary = {
    runs,
    settleSeconds,
    startRssMiB: round(startRss, 1),
    endRssMiB: round(rssMiB(server.pid), 1),
    peakRssMiB: round(peak.stop(), 1),
    storedAnswerKiB: [...new Set(stored.map((bytes) => round(bytes / 1024, 1)))],
  }
  console.log(table(["run", "answer KiB", "model sent MiB", "ms", "RSS MiB", "stream ended with"], rows))
  console.log(JSON.stringify(summary))
  log(`results: ${writeResults("run-bounds", { summary, rows })}`)
} finally {
  await server.stop()
  endless.close()
  removeDir(dataDir)
}
