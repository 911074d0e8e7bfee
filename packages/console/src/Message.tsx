import type { UIMessage } from "ai"
import { memo } from "react"
import { Icon } from "./Icon.js"
import { Markdown } from "./markdown.js"
import { navigate } from "./router.js"

type AnyPart = UIMessage["parts"][number] & Record<string, any>

const json = (value: unknown) => {
  try {
    return JSON.stringify(value, null, 2)
  } catch {
    return String(value)
  }
}

function ToolCall({
  part,
  onApproval,
}: {
  readonly part: AnyPart
  readonly onApproval: (approvalId: string, approved: boolean) => void
}) {
  const name = part.type === "dynamic-tool" ? String(part.toolName) : part.type.slice("tool-".length)
  const state = String(part.state ?? "")
  return (
    <div className={`tool ${state}`}>
      <details open={state === "approval-requested" || state === "output-error"}>
        <summary>
          Tool <code>{name}</code> <span className="tool-state">{state.replace(/-/g, " ")}</span>
        </summary>
        {part.input !== undefined && (
          <>
            <h4>Input</h4>
            <pre>{json(part.input)}</pre>
          </>
        )}
        {part.output !== undefined && (
          <>
            <h4>Output</h4>
            <pre>{json(part.output)}</pre>
          </>
        )}
        {part.errorText && <p className="error">{String(part.errorText)}</p>}
      </details>
      {state === "approval-requested" && part.approval?.id && (
        <fieldset className="approval" aria-label={`Approve ${name}?`}>
          <span>
            The assistant wants to run <code>{name}</code>.
          </span>
          <button type="button" className="primary" onClick={() => onApproval(part.approval.id, true)}>
            Approve
          </button>
          <button type="button" onClick={() => onApproval(part.approval.id, false)}>
            Deny
          </button>
        </fieldset>
      )}
      {state === "output-denied" && <p className="muted">Denied.</p>}
    </div>
  )
}

const renderPart = (part: AnyPart, index: number, onApproval: (id: string, approved: boolean) => void) => {
  if (part.type === "text") return <Markdown key={index} text={String(part.text)} />
  if (part.type === "reasoning")
    return (
      <details key={index} className="reasoning">
        <summary>Reasoning</summary>
        <p>{String(part.text)}</p>
      </details>
    )
  if (part.type === "file") {
    const mediaType = String(part.mediaType)
    return mediaType.startsWith("image/") ? (
      <img key={index} className="attachment" src={String(part.url)} alt={String(part.filename ?? "attached image")} />
    ) : (
      <p key={index} className="file-chip">
        <Icon name="paperclip" size={16} /> {String(part.filename ?? mediaType)}
      </p>
    )
  }
  if (part.type === "dynamic-tool" || part.type.startsWith("tool-"))
    return <ToolCall key={index} part={part} onApproval={onApproval} />
  return null
}

/** One message; memoized, so a streaming answer re-renders only itself in a long thread. */
export const MessageView = memo(function MessageView({
  message,
  branches,
  onFork,
  onApproval,
}: {
  readonly message: UIMessage
  readonly branches: ReadonlyArray<{ readonly id: string; readonly title?: string }>
  readonly onFork: (() => void) | undefined
  readonly onApproval: (approvalId: string, approved: boolean) => void
}) {
  return (
    <article className={`message ${message.role}`} aria-label={message.role === "user" ? "You" : "Assistant"}>
      {(message.parts as Array<AnyPart>).map((part, index) => renderPart(part, index, onApproval))}
      <div className="message-actions">
        {onFork && (
          <button type="button" className="link" onClick={onFork}>
            {message.role === "user" ? "Edit in a branch" : "Branch from here"}
          </button>
        )}
        {branches.length > 0 && (
          <nav aria-label="Other branches from this message" className="branch-links">
            {branches.map((branch, index) => (
              <a
                key={branch.id}
                href={`/app/chat/${encodeURIComponent(branch.id)}`}
                onClick={(event) => {
                  event.preventDefault()
                  navigate(`/chat/${encodeURIComponent(branch.id)}`)
                }}
              >
                {branch.title ?? `Branch ${index + 1}`}
              </a>
            ))}
          </nav>
        )}
      </div>
    </article>
  )
})
