import type { UIMessage } from "ai"
import { memo, useState } from "react"
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

/** The message's words, as the owner would paste them: its text parts, a blank line apart. */
const textOf = (message: UIMessage) =>
  (message.parts as Array<AnyPart>).flatMap((part) => (part.type === "text" ? [String(part.text)] : [])).join("\n\n")

/** The answers to one message, this one among them: the threads to switch between (`< n/m >`). */
export interface Alternatives {
  readonly threadIds: ReadonlyArray<string>
  readonly current: number
}

function CopyMessage({ message }: { readonly message: UIMessage }) {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className="link icon-text copy-message"
      aria-label={copied ? "Copied the message" : "Copy message"}
      onClick={() =>
        void navigator.clipboard?.writeText(textOf(message)).then(() => {
          setCopied(true)
          setTimeout(() => setCopied(false), 1500)
        })
      }
    >
      <Icon name={copied ? "check" : "copy"} size={14} />
      {copied ? "Copied" : "Copy"}
    </button>
  )
}

function Switcher({ alternatives }: { readonly alternatives: Alternatives }) {
  const { threadIds, current } = alternatives
  const go = (index: number) => {
    const id = threadIds[index]
    if (id !== undefined) navigate(`/chat/${encodeURIComponent(id)}`)
  }
  return (
    <nav className="switcher" aria-label="Answers to this message">
      <button
        type="button"
        className="icon"
        aria-label="Previous answer"
        disabled={current === 0}
        onClick={() => go(current - 1)}
      >
        <Icon name="left" size={14} />
      </button>
      <span>
        {current + 1}/{threadIds.length}
      </span>
      <button
        type="button"
        className="icon"
        aria-label="Next answer"
        disabled={current === threadIds.length - 1}
        onClick={() => go(current + 1)}
      >
        <Icon name="right" size={14} />
      </button>
    </nav>
  )
}

/** One message; memoized, so a streaming answer re-renders only itself in a long thread. */
export const MessageView = memo(function MessageView({
  message,
  branches,
  onFork,
  onRegenerate,
  alternatives,
  onApproval,
}: {
  readonly message: UIMessage
  readonly branches: ReadonlyArray<{ readonly id: string; readonly title?: string }>
  /** Edit in a branch (a question) or Branch from here (an answer, not the last). */
  readonly onFork: (() => void) | undefined
  /** A new answer to the same question, kept beside this one (the last answer, when idle). */
  readonly onRegenerate?: (() => void) | undefined
  readonly alternatives?: Alternatives | undefined
  readonly onApproval: (approvalId: string, approved: boolean) => void
}) {
  return (
    <article className={`message ${message.role}`} aria-label={message.role === "user" ? "You" : "Assistant"}>
      {(message.parts as Array<AnyPart>).map((part, index) => renderPart(part, index, onApproval))}
      <div className="message-actions">
        {alternatives && alternatives.threadIds.length > 1 && <Switcher alternatives={alternatives} />}
        {onRegenerate && (
          <button type="button" className="link icon-text" onClick={onRegenerate}>
            <Icon name="refresh" size={14} />
            Regenerate
          </button>
        )}
        {onFork && (
          <button type="button" className="link" onClick={onFork}>
            {message.role === "user" ? "Edit in a branch" : "Branch from here"}
          </button>
        )}
        {/* Last: shown while the message is hovered or holds the focus, so Tab from the action
            before it (always shown) reaches it. */}
        {textOf(message) !== "" && <CopyMessage message={message} />}
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
