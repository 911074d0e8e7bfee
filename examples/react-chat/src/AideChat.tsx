import { useChat } from "@ai-sdk/react"
import type { AideClient } from "@aide/client"
import { useState } from "react"
import { chatOptions } from "./chatOptions.js"

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
          {message.parts.map((part, i) => {
            if (part.type === "text") return <span key={i}>{part.text}</span>
            if (part.type === "dynamic-tool" && part.state === "approval-requested")
              return (
                <span key={i}>
                  Run {part.toolName}({JSON.stringify(part.input)})?{" "}
                  <button
                    type="button"
                    onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}
                  >
                    Allow
                  </button>
                  <button
                    type="button"
                    onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: false })}
                  >
                    Deny
                  </button>
                </span>
              )
            if (part.type === "dynamic-tool")
              return (
                <code key={i}>
                  [{part.toolName}: {part.state}]
                </code>
              )
            return null
          })}
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
