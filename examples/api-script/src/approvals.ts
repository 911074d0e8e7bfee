/**
 * Chat with tool approvals from a script: send a message, and whenever the assistant pauses on
 * a tool call that needs the owner's approval, decide it (here: by a policy function) and read
 * the continued stream. Only `fetch`; SSE parsed by hand.
 *
 * Run against a server with an MCP server configured:
 * `AIDE_URL=http://127.0.0.1:4111 AIDE_TOKEN=… tsx examples/api-script/src/approvals.ts "What time is it in Tokyo?"`
 */

/** A tool call waiting for a decision, as the stream announced it. */
export interface PendingCall {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
}

/** The UI message chunks of one SSE response (`data: {...}` lines, `[DONE]` dropped). */
const readChunks = async (response: Response): Promise<Array<any>> => {
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`)
  return (await response.text())
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)))
}

/**
 * Sends `text` and answers every approval request with `decide` until the assistant finishes.
 * Returns the assistant's text and the decisions made.
 */
export const chatWithApprovals = async (
  baseUrl: string,
  token: string,
  text: string,
  decide: (call: PendingCall) => boolean,
) => {
  const post = (path: string, body: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    })
  const first = await post("/api/chat", { parts: [{ type: "text", text }] })
  const threadId = first.headers.get("x-thread-id")!
  let chunks = await readChunks(first)
  let answer = ""
  const decisions: Array<{ toolName: string; approved: boolean }> = []
  while (true) {
    answer += chunks
      .filter((chunk) => chunk.type === "text-delta")
      .map((chunk) => chunk.delta)
      .join("")
    // The run id travels in the first chunk's metadata (and the X-Run-Id header).
    const runId = chunks.find((chunk) => chunk.type === "start")?.messageMetadata?.runId as string
    const inputs = new Map(
      chunks.filter((chunk) => chunk.type === "tool-input-available").map((chunk) => [chunk.toolCallId, chunk]),
    )
    const requests = chunks.filter((chunk) => chunk.type === "tool-approval-request")
    if (requests.length === 0) return { threadId, answer, decisions }
    let continued: Array<any> = []
    // Each pending call gets its decision; the answer to the last one is the continued stream.
    for (const request of requests) {
      const input = inputs.get(request.toolCallId)
      const call = { toolCallId: request.toolCallId, toolName: input?.toolName ?? "?", input: input?.input }
      const approved = decide(call)
      decisions.push({ toolName: call.toolName, approved })
      continued = await readChunks(
        await post("/api/chat/approve", { runId, threadId, toolCallId: call.toolCallId, approved }),
      )
    }
    chunks = continued
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.AIDE_URL ?? "http://127.0.0.1:4111"
  const token = process.env.AIDE_TOKEN
  if (!token) {
    console.error("set AIDE_TOKEN (an access token, e.g. from examples/api-script)")
    process.exit(1)
  }
  // A cautious policy: let the assistant read, never delete.
  const policy = (call: PendingCall) => !/delete|remove|drop/i.test(call.toolName)
  chatWithApprovals(url, token, process.argv[2] ?? "What can you do?", policy).then((result) => console.log(result))
}
