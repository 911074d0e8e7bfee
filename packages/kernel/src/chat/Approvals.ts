import type { StoredMessage } from "../threads/Threads.js"
import type { ApprovalCall } from "./ChatRuns.js"

/**
 * Tool parts of UI messages (`tool-<name>` or `dynamic-tool`) as the AI SDK stores them, and the
 * approval transitions applied to them. Pure functions over stored messages.
 */
interface ToolPart {
  readonly type: string
  readonly toolCallId: string
  readonly toolName?: string
  readonly state: string
  readonly approval?: { readonly id: string; readonly approved?: boolean; readonly reason?: string }
  readonly [key: string]: unknown
}

const isToolPart = (part: unknown): part is ToolPart => {
  if (typeof part !== "object" || part === null) return false
  const { type, toolCallId } = part as { type?: unknown; toolCallId?: unknown }
  return (
    typeof type === "string" && (type === "dynamic-tool" || type.startsWith("tool-")) && typeof toolCallId === "string"
  )
}

const toolNameOf = (part: ToolPart) =>
  part.type === "dynamic-tool" && typeof part.toolName === "string" ? part.toolName : part.type.slice("tool-".length)

/** The calls of `message` that wait for a decision (state `approval-requested`). */
export const pendingCalls = (message: {
  readonly parts: ReadonlyArray<unknown>
}): ReadonlyArray<Omit<ApprovalCall, "approved">> =>
  message.parts.flatMap((part) =>
    isToolPart(part) && part.state === "approval-requested" && part.approval !== undefined
      ? [{ toolCallId: part.toolCallId, approvalId: part.approval.id, toolName: toolNameOf(part) }]
      : [],
  )

const mapToolParts = (message: StoredMessage, update: (part: ToolPart) => ToolPart): StoredMessage => ({
  ...message,
  parts: message.parts.map((part) => (isToolPart(part) ? update(part) : part)),
})

/** `message` with each decided call in `approval-responded`, as the AI SDK expects to resume. */
export const applyDecisions = (message: StoredMessage, calls: ReadonlyArray<ApprovalCall>): StoredMessage => {
  const decided = new Map(calls.flatMap((call) => (call.approved === null ? [] : [[call.toolCallId, call.approved]])))
  return mapToolParts(message, (part) => {
    const approved = decided.get(part.toolCallId)
    if (approved === undefined || part.state !== "approval-requested" || part.approval === undefined) return part
    return {
      ...part,
      state: "approval-responded",
      approval: { ...part.approval, approved, ...(approved ? {} : { reason: "The owner denied this tool call." }) },
    }
  })
}

export const supersededReason = "The owner sent a new message instead of deciding; the call did not run."

/**
 * `message` with every call still waiting (or approved but never run) marked denied: the
 * conversation moved on, and a tool call without a result would break the next model request.
 */
export const denyUnfinished = (message: StoredMessage): StoredMessage =>
  mapToolParts(message, (part) =>
    (part.state === "approval-requested" || part.state === "approval-responded") && part.approval !== undefined
      ? {
          ...part,
          state: "output-denied",
          approval: { id: part.approval.id, approved: false, reason: supersededReason },
        }
      : part,
  )
