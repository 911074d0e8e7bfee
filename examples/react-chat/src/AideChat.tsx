import { useChat } from "@ai-sdk/react"
import type { AideClient } from "@aide/client"
import { useState } from "react"
import { chatOptions } from "./chatOptions.js"

type Message = ReturnType<typeof useChat>["messages"][number]

/** One part of a message: text, or a tool call (with Allow/Deny while it waits for approval). */
function Part({
  part,
  onDecide,
}: {
  readonly part: Message["parts"][number]
  readonly onDecide: (decision: { id: string; approved: boolean }) => void | PromiseLike<void>
}) {
  if (part.type === "text") return <span>{part.text}</span>
  if (part.type !== "dynamic-tool") return null
  if (part.state !== "approval-requested")
    return (
      <code>
        [{part.toolName}: {part.state}]
      </code>
    )
  return (
    <span>
      Run {part.toolName}({JSON.stringify(part.input)})?{" "}
      <button type="button" onClick={() => void onDecide({ id: part.approval.id, approved: true })}>
        Allow
      </button>
      <button type="button" onClick={() => void onDecide({ id: part.approval.id, approved: false })}>
        Deny
      </button>
    </span>
  )
}

/** A chat with Aide: streamed answers, tool calls waiting for approval, stop, regenerate, resume. */
export function AideChat({ client, threadId }: { readonly client: AideClient; readonly threadId: string }) {
  const { messages, sendMessage, addToolApprovalResponse, regenerate, stop, status } = useChat({
    ...chatOptions(client, threadId),
    resume: true, // reconnects to an answer still streaming (after a reload)
  })
  const [input, setInput] = useState("")
  return (
    <div>
      {messages.map((message) => (
        <div key={message.id}>
          <b>{message.role}:</b>{" "}
          {message.parts.map((part, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end: the position is the identity
            <Part key={i} part={part} onDecide={addToolApprovalResponse} />
          ))}
        </div>
      ))}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void sendMessage({ text: input })
          setInput("")
        }}
      >
        <input value={input} onChange={(event) => setInput(event.target.value)} />
        {status === "streaming" ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="button" onClick={() => void regenerate()}>
            Regenerate
          </button>
        )}
      </form>
    </div>
  )
}
