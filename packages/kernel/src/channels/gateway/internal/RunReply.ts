/** A tool call of the run waiting for the owner's decision. */
export interface WaitingCall {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
}

/** What a drained run said: its text, its failure if any, and the calls it paused on. */
export interface RunReply {
  readonly text: string
  readonly error: string | null
  readonly waiting: ReadonlyArray<WaitingCall>
  /** The stream only acknowledged a decision while other calls of the run still wait. */
  readonly acknowledgement: boolean
}

type Chunk = { readonly type?: unknown; readonly [key: string]: unknown }

/**
 * Reads a run's UI message chunks (AI SDK 6): text blocks joined by blank lines, the last error,
 * and the calls that reached `tool-approval-request` (with the name and input their
 * `tool-input-available` chunk gave).
 */
export const replyOf = (chunks: ReadonlyArray<unknown>): RunReply => {
  // Blocks in order; a provider may reuse one text id in every step, so a block starts at `text-start`.
  const texts: Array<{ readonly id: string; text: string }> = []
  const inputs = new Map<string, { readonly toolName: string; readonly input: unknown }>()
  const waiting: Array<WaitingCall> = []
  let error: string | null = null
  let acknowledgement = false
  for (const raw of chunks) {
    const chunk = raw as Chunk
    switch (chunk.type) {
      case "start": {
        const metadata = chunk.messageMetadata as { readonly awaitingApproval?: unknown } | undefined
        if (Array.isArray(metadata?.awaitingApproval)) acknowledgement = true
        break
      }
      case "text-start":
        texts.push({ id: String(chunk.id), text: "" })
        break
      case "text-delta": {
        const id = String(chunk.id)
        const block = texts.findLast((candidate) => candidate.id === id)
        if (block === undefined) texts.push({ id, text: String(chunk.delta ?? "") })
        else block.text += String(chunk.delta ?? "")
        break
      }
      case "tool-input-available":
        inputs.set(String(chunk.toolCallId), { toolName: String(chunk.toolName), input: chunk.input })
        break
      case "tool-approval-request": {
        const toolCallId = String(chunk.toolCallId)
        const call = inputs.get(toolCallId)
        waiting.push({ toolCallId, toolName: call?.toolName ?? "unknown", input: call?.input ?? null })
        break
      }
      case "error":
        error = String(chunk.errorText ?? "unknown error")
        break
    }
  }
  const text = texts
    .map((block) => block.text.trim())
    .filter((block) => block !== "")
    .join("\n\n")
  return { text, error, waiting, acknowledgement }
}

/** The text sent into the conversation: the answer, and what went wrong if something did. */
export const replyText = (reply: RunReply): string => {
  if (reply.error === null) return reply.text
  const failure = `⚠️ The answer failed: ${reply.error}`
  return reply.text === "" ? failure : `${reply.text}\n\n${failure}`
}
