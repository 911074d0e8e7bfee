import { useChat } from "@ai-sdk/react"
import { aideChatTransport, type ThreadDetail } from "@aide/client"
import { type FileUIPart, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai"
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react"
import { client, errorText } from "./api.js"
import { Composer } from "./Composer.js"
import { Icon } from "./Icon.js"
import { type Alternatives, MessageView } from "./Message.js"
import { ModelPicker } from "./ModelPicker.js"
import { firstWords, provisionalTitle, setProvisionalTitle } from "./provisionalTitles.js"
import { navigate } from "./router.js"
import { onShortcut } from "./Shortcuts.js"
import { threadsChanged } from "./Sidebar.js"

const transport = aideChatTransport(client)

/** What a branch made from a user message opens with in its message box (the message to edit). */
const pendingDrafts = new Map<string, string>()

/** What a branch made by Regenerate sends as soon as it opens: the question, asked again there. */
const pendingSends = new Map<string, { readonly text: string; readonly files: ReadonlyArray<FileUIPart> }>()

/** Chat ids made here for new chats: nothing to load or resume yet (the server creates the thread on the first send). */
const freshIds = new Set<string>()

/** A new chat's id (also its thread's); `crypto.randomUUID` needs a secure context, LAN http is not one. */
export const newChatId = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  const id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
  freshIds.add(id)
  return id
}

/** A thread: loads its history, then hands it to `useChat` (which resumes a running answer). */
export function Chat({ threadId }: { readonly threadId: string }) {
  const isNew = freshIds.has(threadId)
  const [detail, setDetail] = useState<ThreadDetail | null | undefined>(isNew ? null : undefined)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    if (isNew) return
    client.threads
      .get(threadId)
      .then(setDetail)
      .catch((cause) => {
        // A chat id the server has not seen yet (a new chat's first answer still running) is empty.
        if ((cause as { status?: number }).status === 404) setDetail(null)
        else setError(errorText(cause))
      })
  }, [threadId, isNew])
  if (error)
    return (
      <p role="alert" className="error">
        {error}
      </p>
    )
  if (detail === undefined) return <p className="loading">Loading…</p>
  return <Conversation id={threadId} isNew={isNew} detail={detail} />
}

function Conversation({
  id,
  isNew,
  detail,
}: {
  readonly id: string
  readonly isNew: boolean
  readonly detail: ThreadDetail | null
}) {
  const initial = useMemo(() => (detail?.messages ?? []) as unknown as Array<UIMessage>, [detail])
  // A branch Regenerate just made: its question is sent at once, so there is nothing to resume.
  const [pendingSend] = useState(() => pendingSends.get(id))
  const chat = useChat({
    id,
    messages: initial,
    transport,
    resume: !isNew && pendingSend === undefined,
    experimental_throttle: 50,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: () => {
      threadsChanged()
      // The first words are the title just after the answer; the model's title comes a few
      // seconds later: look again then (the list and the heading both follow the event).
      for (const delay of [1_000, 5_000, 15_000]) setTimeout(threadsChanged, delay)
    },
  })
  const [draft, setDraft] = useState(() => pendingDrafts.get(id) ?? "")
  useEffect(() => void pendingDrafts.delete(id), [id])
  const busy = chat.status === "submitted" || chat.status === "streaming"
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the branch opens
  useEffect(() => {
    if (pendingSend === undefined) return
    pendingSends.delete(id)
    void chat.sendMessage({
      text: pendingSend.text,
      ...(pendingSend.files.length > 0 ? { files: [...pendingSend.files] } : {}),
    })
  }, [])
  // Esc stops the answer being written; Alt+Y / Alt+N decide the first tool call waiting.
  const chatRef = useRef(chat)
  chatRef.current = chat
  useEffect(() => {
    const decide = (approved: boolean) => () => {
      const waiting = chatRef.current.messages
        .flatMap((message) => message.parts as Array<{ state?: string; approval?: { id?: string } }>)
        .find((part) => part.state === "approval-requested" && part.approval?.id !== undefined)
      if (waiting?.approval?.id !== undefined)
        void chatRef.current.addToolApprovalResponse({ id: waiting.approval.id, approved })
    }
    const offs = [
      onShortcut("stop", () => {
        const { status } = chatRef.current
        if (status === "submitted" || status === "streaming") void chatRef.current.stop()
      }),
      onShortcut("approve", decide(true)),
      onShortcut("deny", decide(false)),
    ]
    return () => {
      for (const off of offs) off()
    }
  }, [])
  const textOf = (message: UIMessage) => message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")
  /**
   * Edit in a branch (a question): a branch before it, the question in the message box. Branch
   * from here (an answer): a branch holding everything up to and including the answer, so the
   * owner goes on from it (a fork copies what comes before the message it is made at: the next one).
   */
  const fork = async (message: UIMessage, index: number) => {
    const at = message.role === "user" ? message : chat.messages[index + 1]
    if (at === undefined) return
    const result = await client.threads.fork(transport.threadIdOf(id), at.id)
    if (message.role === "user") pendingDrafts.set(result.thread.id, textOf(message))
    threadsChanged()
    navigate(`/chat/${encodeURIComponent(result.thread.id)}`)
  }
  /** A new answer to the answer's question, kept beside it: a branch before the question, which asks it again. */
  const regenerate = async (index: number) => {
    const question = chat.messages[index - 1]
    if (question?.role !== "user") return
    const result = await client.threads.fork(transport.threadIdOf(id), question.id)
    pendingSends.set(result.thread.id, {
      text: textOf(question),
      files: question.parts.filter((part): part is FileUIPart => part.type === "file"),
    })
    threadsChanged()
    navigate(`/chat/${encodeURIComponent(result.thread.id)}`)
  }
  const forkInfo = detail?.forkInfo ?? null
  const answersAt = useAnswerSwitch(id, detail)
  // Untitled with messages (a first answer streaming, or reloaded before its title came): the
  // first words of the first message, as the list shows it and the server will name it.
  const firstText = chat.messages
    .find((message) => message.role === "user")
    ?.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join(" ")
  const untitled = provisionalTitle(id) ?? (firstText === undefined ? undefined : firstWords(firstText))
  return (
    <section className="chat" aria-label="Conversation">
      <div className="chat-head">
        <ThreadTitle chatId={id} initial={detail} exists={!isNew || chat.messages.length > 0} fallback={untitled} />
        <ModelPicker />
      </div>
      {forkInfo && (
        <nav className="branches" aria-label="Branches">
          <span>Branch of</span>
          <a
            href={`/app/chat/${encodeURIComponent(forkInfo.sourceThreadId)}`}
            onClick={(e) => {
              e.preventDefault()
              navigate(`/chat/${encodeURIComponent(forkInfo.sourceThreadId)}`)
            }}
          >
            the original
          </a>
          {forkInfo.siblings
            .filter((s) => s.id !== id)
            .map((sibling, index) => (
              <a
                key={sibling.id}
                href={`/app/chat/${encodeURIComponent(sibling.id)}`}
                onClick={(e) => {
                  e.preventDefault()
                  navigate(`/chat/${encodeURIComponent(sibling.id)}`)
                }}
              >
                {sibling.title ?? `branch ${index + 1}`}
              </a>
            ))}
        </nav>
      )}
      <div className="messages" role="log" aria-live="polite" aria-busy={busy}>
        {chat.messages.length === 0 && <p className="empty">Ask anything. Drop files here or paste images.</p>}
        {chat.messages.map((message, index) => {
          const last = index === chat.messages.length - 1
          const answer = message.role === "assistant"
          return (
            <MessageView
              key={message.id}
              message={message}
              branches={detail?.forks[message.id] ?? []}
              onFork={busy || (answer && last) ? undefined : () => void fork(message, index)}
              onRegenerate={!busy && answer && last && index > 0 ? () => void regenerate(index) : undefined}
              alternatives={answer ? answersAt(index, chat.messages[index - 1]?.id) : undefined}
              onApproval={(approvalId, approved) => void chat.addToolApprovalResponse({ id: approvalId, approved })}
            />
          )
        })}
        {chat.status === "submitted" && <p className="typing">Thinking…</p>}
        {chat.error && (
          <div role="alert" className="error inline-error">
            <span>{errorText(chat.error)}</span>
            <button type="button" onClick={() => void chat.regenerate()}>
              Retry
            </button>
          </div>
        )}
      </div>
      <Composer
        draft={draft}
        setDraft={setDraft}
        busy={busy}
        onStop={() => void chat.stop()}
        onSend={(text, files) => {
          if (isNew) {
            // From now on the thread exists: coming back to it loads it (and resumes its answer).
            freshIds.delete(id)
            setProvisionalTitle(id, text)
            setTimeout(threadsChanged, 300)
          }
          void chat.sendMessage({ text, ...(files.length > 0 ? { files } : {}) })
        }}
      />
    </section>
  )
}

/**
 * The answers to a question as threads to switch between (`< n/m >` on the answer): this thread
 * and the branches made at its question (Regenerate, Edit in a branch); in a branch whose fork
 * point is that question, its original and the original's branches there, in the server's order.
 */
function useAnswerSwitch(id: string, detail: ThreadDetail | null) {
  const forkInfo = detail?.forkInfo ?? null
  const [original, setOriginal] = useState<ReadonlyArray<string> | undefined>(undefined)
  useEffect(() => {
    if (forkInfo === null) return
    let alive = true
    void client.threads
      .get(forkInfo.sourceThreadId)
      .then((source) => {
        const point = source.messages[forkInfo.forkPointIndex]
        const branches = point === undefined ? [] : (source.forks[point.id] ?? [])
        if (alive) setOriginal([forkInfo.sourceThreadId, ...branches.map((branch) => branch.id)])
      })
      .catch(() => {})
    return () => {
      alive = false
    }
  }, [forkInfo])
  return (index: number, questionId: string | undefined): Alternatives | undefined => {
    if (forkInfo !== null && original !== undefined && index - 1 === forkInfo.forkPointIndex) {
      const current = original.indexOf(id)
      return current === -1 ? undefined : { threadIds: original, current }
    }
    const branches = questionId === undefined ? [] : (detail?.forks[questionId] ?? [])
    return branches.length === 0 ? undefined : { threadIds: [id, ...branches.map((branch) => branch.id)], current: 0 }
  }
}

/**
 * The heading: the thread's title (a branch without one: its original's), kept current as titles
 * arrive or change (the `aide:threads` event), and renamed in place. Renaming here renames the
 * thread on screen, a branch included.
 */
function ThreadTitle({
  chatId,
  initial,
  exists,
  fallback,
}: {
  readonly chatId: string
  readonly initial: ThreadDetail | null
  /** False for a new chat before its first message: there is no thread to read yet. */
  readonly exists: boolean
  /** What an untitled thread with messages is called meanwhile. */
  readonly fallback: string | undefined
}) {
  // The thread the chat writes to now (a Retry of an answered message moves it to a branch).
  const threadId = useCallback(() => transport.threadIdOf(chatId), [chatId])
  const [title, setTitle] = useState<string | null>(initial?.thread.title ?? null)
  const [editing, setEditing] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const refresh = useCallback(async () => {
    // A new chat has no thread until its first message: asking would only log a 404 (the list
    // announces changes of other chats too).
    if (!exists) return
    try {
      const detail = await client.threads.get(threadId())
      const source = detail.forkInfo?.sourceThreadId
      const own = detail.thread.title
      setTitle(own ?? (source === undefined ? null : (await client.threads.get(source)).thread.title))
    } catch {
      // Not created yet (a new chat before its first answer): it keeps "New chat".
    }
  }, [threadId, exists])
  useEffect(() => {
    if (initial !== null && initial.thread.title === null && initial.forkInfo !== null) void refresh()
    const listener = () => void refresh()
    globalThis.addEventListener("aide:threads", listener)
    return () => globalThis.removeEventListener("aide:threads", listener)
  }, [refresh, initial])
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const value = String(new FormData(event.currentTarget).get("title") ?? "").trim()
    setEditing(false)
    const target = threadId()
    // A conversation has one name: the thread on screen and, when it is a branch, the original
    // the list shows (the list's rename does the same the other way).
    const rename = async () => {
      const { threads } = await client.threads.list({ perPage: false })
      const entry = threads.find((summary) => summary.threadIds.includes(target))
      const ids = entry === undefined || entry.id === target ? [target] : [target, entry.id]
      await Promise.all(ids.map((id) => client.threads.rename(id, value === "" ? null : value)))
    }
    void rename()
      .then(() => {
        setError(null)
        threadsChanged()
      })
      .catch((cause) => setError(errorText(cause)))
  }
  if (editing)
    return (
      <form className="title-edit" onSubmit={save} aria-label="Rename this chat">
        <input name="title" aria-label="Chat title" defaultValue={title ?? ""} autoFocus />
        <button type="submit">Save</button>
        <button type="button" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </form>
    )
  return (
    <h1 className="title">
      {title === null ? (
        // Untitled, the heading reads "New chat" (or the first words): a button showing that text
        // would either be a second "New chat" beside the list's, one that renames, or be named
        // otherwise than it reads (what voice control users say). The words, then a pencil.
        <>
          <span className="untitled">{fallback ?? "New chat"}</span>
          <button
            type="button"
            className="icon small"
            title="Rename this chat"
            aria-label="Rename this chat"
            onClick={() => setEditing(true)}
          >
            <Icon name="pencil" size={16} />
          </button>
        </>
      ) : (
        <button type="button" className="title-button" title="Rename this chat" onClick={() => setEditing(true)}>
          {title}
        </button>
      )}
      {error && (
        <span role="alert" className="error">
          {" "}
          {error}
        </span>
      )}
    </h1>
  )
}
