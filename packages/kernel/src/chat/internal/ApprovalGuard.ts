import type { ToolSet } from "ai"

export const approvalRequiredText =
  "this call needs the owner's approval: ask for it (a tool-approval-request) instead of running it"

type Execute = NonNullable<ToolSet[string]["execute"]>

/**
 * The run's tools with their approval policy enforced where they run: a call whose
 * `needsApproval` answers true runs only when the owner approved it (`approvedCallIds`). The AI
 * SDK never runs such a call anyway; an agent step of an embedder's own (`AgentStep`) cannot skip
 * the owner by calling `execute` itself. `execute` keeps its shape (a streamed tool still returns
 * its async iterable): the policy of Aide's tools answers at once.
 */
export const guardApprovals = (toolset: ToolSet, approvedCallIds: ReadonlySet<string>): ToolSet => {
  const guarded: ToolSet = {}
  for (const [id, tool] of Object.entries(toolset)) {
    const { execute, needsApproval } = tool
    if (execute === undefined || needsApproval === undefined || needsApproval === false) {
      guarded[id] = tool
      continue
    }
    const refused = () => Promise.reject(new Error(approvalRequiredText))
    const checked: Execute = (input, options) => {
      if (approvedCallIds.has(options.toolCallId)) return execute(input, options)
      const needed =
        typeof needsApproval === "function"
          ? needsApproval(input, {
              toolCallId: options.toolCallId,
              messages: options.messages,
              experimental_context: options.experimental_context,
            })
          : needsApproval
      if (typeof needed === "boolean") return needed ? refused() : execute(input, options)
      return Promise.resolve(needed).then((yes) => (yes ? refused() : execute(input, options)))
    }
    guarded[id] = { ...tool, execute: checked } as ToolSet[string]
  }
  return guarded
}
