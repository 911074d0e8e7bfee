import { Fragment, type ReactNode, useState } from "react"
import { type Block, type Inline, parseMarkdown } from "./markdownParse.js"

/**
 * Markdown rendered as React elements: no HTML string is ever injected, so a model's answer
 * cannot run script or load anything (links are http(s)/mailto only and open in a new tab).
 */
export function Markdown({ text }: { readonly text: string }) {
  return <div className="md">{parseMarkdown(text).map((block, index) => renderBlock(block, index))}</div>
}

function CodeBlock({ code, lang }: { readonly code: string; readonly lang: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <div className="code">
      <div className="code-bar">
        <span>{lang || "code"}</span>
        <button
          type="button"
          className="link"
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(() => {
              setCopied(true)
              setTimeout(() => setCopied(false), 1500)
            })
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre>
        <code>{code}</code>
      </pre>
    </div>
  )
}

const renderBlock = (block: Block, key: number): ReactNode => {
  switch (block.type) {
    case "code":
      return <CodeBlock key={key} code={block.code} lang={block.lang} />
    case "heading": {
      const Tag = `h${Math.min(6, block.level + 2)}` as "h3"
      return <Tag key={key}>{renderInline(block.content)}</Tag>
    }
    case "list": {
      const Tag = block.ordered ? "ol" : "ul"
      return (
        <Tag key={key}>
          {block.items.map((item, index) => (
            <li key={index}>{renderInline(item)}</li>
          ))}
        </Tag>
      )
    }
    case "quote":
      return <blockquote key={key}>{renderInline(block.content)}</blockquote>
    case "rule":
      return <hr key={key} />
    case "paragraph":
      return <p key={key}>{renderInline(block.content)}</p>
  }
}

const renderInline = (nodes: ReadonlyArray<Inline>): ReactNode =>
  nodes.map((node, index) => {
    switch (node.type) {
      case "text":
        return <Fragment key={index}>{node.text}</Fragment>
      case "code":
        return <code key={index}>{node.text}</code>
      case "strong":
        return <strong key={index}>{renderInline(node.children)}</strong>
      case "em":
        return <em key={index}>{renderInline(node.children)}</em>
      case "link":
        return (
          <a key={index} href={node.href} target="_blank" rel="noopener noreferrer">
            {renderInline(node.children)}
          </a>
        )
      case "break":
        return <br key={index} />
      default:
        return null
    }
  })
