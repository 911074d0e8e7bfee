import type { FileUIPart } from "ai"
import { type ClipboardEvent, type DragEvent, type KeyboardEvent, useState } from "react"
import { Icon } from "./Icon.js"

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(file)
  })

/** Files become data-URL file parts, the form Aide's chat takes. */
const toParts = (files: ReadonlyArray<File>) =>
  Promise.all(
    files.map(
      async (file): Promise<FileUIPart> => ({
        type: "file",
        mediaType: file.type || "application/octet-stream",
        filename: file.name,
        url: await readAsDataUrl(file),
      }),
    ),
  )

/** The message box: Enter sends, Shift+Enter breaks the line; drop or paste files to attach them. */
export function Composer({
  draft,
  setDraft,
  busy,
  onSend,
  onStop,
}: {
  readonly draft: string
  readonly setDraft: (text: string) => void
  readonly busy: boolean
  readonly onSend: (text: string, files: Array<FileUIPart>) => void
  readonly onStop: () => void
}) {
  const [files, setFiles] = useState<Array<FileUIPart>>([])
  const [dragging, setDragging] = useState(false)
  const add = async (list: ReadonlyArray<File>) => {
    if (list.length > 0) {
      const parts = await toParts(list)
      setFiles((current) => [...current, ...parts])
    }
  }
  const send = () => {
    if (busy || (draft.trim() === "" && files.length === 0)) return
    onSend(draft, files)
    setDraft("")
    setFiles([])
  }
  return (
    <form
      className={`composer ${dragging ? "dragging" : ""}`}
      onSubmit={(event) => {
        event.preventDefault()
        send()
      }}
      onDragOver={(event: DragEvent) => {
        event.preventDefault()
        setDragging(true)
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event: DragEvent) => {
        event.preventDefault()
        setDragging(false)
        void add(Array.from(event.dataTransfer.files))
      }}
    >
      {files.length > 0 && (
        <ul className="attachments" aria-label="Attachments">
          {files.map((file, index) => (
            <li key={index}>
              {file.mediaType.startsWith("image/") ? (
                <img src={file.url} alt="" />
              ) : (
                <Icon name="paperclip" size={16} />
              )}{" "}
              {file.filename}
              <button
                type="button"
                className="icon small"
                aria-label={`Remove ${file.filename}`}
                onClick={() => setFiles((current) => current.filter((_, i) => i !== index))}
              >
                <Icon name="close" size={14} />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-row">
        <label className="icon attach" title="Attach files">
          <Icon name="paperclip" />
          <input
            type="file"
            multiple
            aria-label="Attach files"
            className="visually-hidden"
            onChange={(event) => void add(Array.from(event.target.files ?? []))}
          />
        </label>
        <textarea
          aria-label="Message"
          placeholder="Message Aide"
          rows={2}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event: KeyboardEvent) => {
            if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault()
              send()
            }
          }}
          onPaste={(event: ClipboardEvent) => {
            const pasted = Array.from(event.clipboardData.files)
            if (pasted.length > 0) {
              event.preventDefault()
              void add(pasted)
            }
          }}
        />
        {busy ? (
          <button type="button" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" className="primary">
            Send
          </button>
        )}
      </div>
    </form>
  )
}
