import { createElement, Fragment, type ReactNode, useEffect, useState } from "react"
import type { Highlighted } from "./highlight.js"
import { decodeEntities, type MathToken, parseMarkdown, safeHref, type Token, type Tokens } from "./markdownParse.js"
import type { MathNode } from "./math.js"

/**
 * Markdown rendered as React elements: no HTML string is ever injected, so a model's answer
 * cannot run script or load anything (links are http(s)/mailto only and open in a new tab;
 * images are shown as links; HTML stays text).
 */
export function Markdown({ text }: { readonly text: string }) {
  return <div className="md">{renderBlocks(parseMarkdown(text))}</div>
}

type Highlighter = (code: string, lang: string) => Array<Highlighted> | undefined
let highlighter: Promise<Highlighter> | undefined
/** The highlighter's chunk, loaded once, on the first code block. */
const loadHighlighter = () => {
  highlighter ??= import("./highlight.js").then((module) => module.highlight)
  return highlighter
}

const renderHighlighted = (nodes: ReadonlyArray<Highlighted>): ReactNode =>
  nodes.map((node, index) =>
    typeof node === "string" ? (
      <Fragment key={index}>{node}</Fragment>
    ) : (
      <span key={index} className={node.className}>
        {renderHighlighted(node.children)}
      </span>
    ),
  )

/** Copies `text`, saying "Copied" for a moment. */
export function CopyButton({ text, label = "Copy" }: { readonly text: string; readonly label?: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className="link"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true)
          setTimeout(() => setCopied(false), 1500)
        })
      }}
    >
      {copied ? "Copied" : label}
    </button>
  )
}

function CodeBlock({ code, lang }: { readonly code: string; readonly lang: string }) {
  const [highlighted, setHighlighted] = useState<Array<Highlighted> | undefined>(undefined)
  useEffect(() => {
    let alive = true
    // Highlighting is a nicety: the plain code is on screen at once, coloured when the chunk is in.
    void loadHighlighter()
      .then((highlight) => alive && setHighlighted(highlight(code, lang)))
      .catch(() => {})
    return () => {
      alive = false
    }
  }, [code, lang])
  return (
    <div className="code">
      <div className="code-bar">
        <span>{lang || "code"}</span>
        <CopyButton text={code} />
      </div>
      <pre>
        <code className={highlighted === undefined ? undefined : "hljs"}>
          {highlighted === undefined ? code : renderHighlighted(highlighted)}
        </code>
      </pre>
    </div>
  )
}

type MathRenderer = (tex: string, display: boolean) => MathNode | undefined
let mathRenderer: Promise<MathRenderer> | undefined
/** KaTeX's chunk, loaded once, on the first math in a message. */
const loadMath = () => {
  mathRenderer ??= import("./math.js").then((module) => module.renderMath)
  return mathRenderer
}

const renderMathNode = (node: MathNode, key: number): ReactNode =>
  typeof node === "string" ? (
    <Fragment key={key}>{node}</Fragment>
  ) : (
    createElement(node.tag, { key, ...node.attributes }, ...node.children.map(renderMathNode))
  )

/** Math: its TeX source at once, typeset (MathML) when KaTeX's chunk is in; the source again if KaTeX cannot read it. */
function MathView({ tex, display }: { readonly tex: string; readonly display: boolean }) {
  const [typeset, setTypeset] = useState<MathNode | undefined>(undefined)
  useEffect(() => {
    let alive = true
    void loadMath()
      .then((render) => alive && setTypeset(render(tex, display)))
      .catch(() => {})
    return () => {
      alive = false
    }
  }, [tex, display])
  // Spans, not blocks: display math may sit inside a paragraph (`… $$x$$ …`).
  if (typeset === undefined) return <code className={display ? "math-source display" : "math-source"}>{tex}</code>
  return display ? <span className="math">{renderMathNode(typeset, 0)}</span> : renderMathNode(typeset, 0)
}

const renderBlocks = (tokens: ReadonlyArray<Token>): ReactNode =>
  tokens.map((token, index) => renderBlock(token, index))

const renderBlock = (token: Token, key: number): ReactNode => {
  switch (token.type) {
    case "math":
      return <MathView key={key} tex={(token as unknown as MathToken).text} display />
    case "code":
      return (
        <CodeBlock
          key={key}
          code={(token as Tokens.Code).text}
          lang={((token as Tokens.Code).lang ?? "").split(/\s/)[0] ?? ""}
        />
      )
    case "heading": {
      const Tag = `h${Math.min(6, (token as Tokens.Heading).depth + 2)}` as "h3"
      return <Tag key={key}>{renderInline(token.tokens ?? [])}</Tag>
    }
    case "list": {
      const list = token as Tokens.List
      const Tag = list.ordered ? "ol" : "ul"
      return (
        <Tag key={key} start={list.ordered && list.start !== "" && list.start !== 1 ? list.start : undefined}>
          {list.items.map((item, index) => (
            <li key={index} className={item.task ? "task" : undefined}>
              {item.task && (
                <input
                  type="checkbox"
                  checked={item.checked === true}
                  disabled
                  aria-label={item.checked ? "done" : "to do"}
                />
              )}
              {item.loose ? renderBlocks(item.tokens) : renderItem(item.tokens)}
            </li>
          ))}
        </Tag>
      )
    }
    case "blockquote":
      return <blockquote key={key}>{renderBlocks(token.tokens ?? [])}</blockquote>
    case "hr":
      return <hr key={key} />
    case "table": {
      const table = token as Tokens.Table
      const align = (index: number) => table.align[index] ?? undefined
      return (
        <div key={key} className="table">
          <table>
            <thead>
              <tr>
                {table.header.map((cell, index) => (
                  <th key={index} style={align(index) ? { textAlign: align(index) } : undefined}>
                    {renderInline(cell.tokens)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, index) => (
                    <td key={index} style={align(index) ? { textAlign: align(index) } : undefined}>
                      {renderInline(cell.tokens)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )
    }
    case "paragraph":
      return <p key={key}>{renderInline(token.tokens ?? [])}</p>
    case "space":
    case "def":
      return null
    case "html":
      return <p key={key}>{(token as Tokens.HTML).text}</p>
    case "text": {
      const text = token as Tokens.Text
      return <p key={key}>{text.tokens ? renderInline(text.tokens) : decodeEntities(text.text)}</p>
    }
    default: {
      const children = (token as Tokens.Generic).tokens
      return children ? <Fragment key={key}>{renderBlocks(children)}</Fragment> : null
    }
  }
}

/** A tight list item's tokens: its text inline (no paragraph), nested lists as blocks. */
const renderItem = (tokens: ReadonlyArray<Token>): ReactNode =>
  tokens.map((token, index) => {
    if (token.type === "checkbox") return null
    if (token.type === "text")
      return (
        <Fragment key={index}>
          {token.tokens ? renderInline(token.tokens) : decodeEntities((token as Tokens.Text).text)}
        </Fragment>
      )
    return renderBlock(token, index)
  })

const renderInline = (tokens: ReadonlyArray<Token>): ReactNode =>
  tokens.map((token, index) => {
    switch (token.type) {
      case "text":
        return (
          <Fragment key={index}>
            {token.tokens ? renderInline(token.tokens) : decodeEntities((token as Tokens.Text).text)}
          </Fragment>
        )
      case "inlineMath": {
        const math = token as unknown as MathToken
        return <MathView key={index} tex={math.text} display={math.display} />
      }
      case "escape":
        return <Fragment key={index}>{(token as Tokens.Escape).text}</Fragment>
      case "codespan":
        return <code key={index}>{decodeEntities((token as Tokens.Codespan).text)}</code>
      case "strong":
        return <strong key={index}>{renderInline(token.tokens ?? [])}</strong>
      case "em":
        return <em key={index}>{renderInline(token.tokens ?? [])}</em>
      case "del":
        return <del key={index}>{renderInline(token.tokens ?? [])}</del>
      case "br":
        return <br key={index} />
      case "link": {
        const link = token as Tokens.Link
        const href = safeHref(link.href)
        if (href === undefined) return <Fragment key={index}>{link.raw}</Fragment>
        return (
          <a key={index} href={href} target="_blank" rel="noopener noreferrer">
            {renderInline(link.tokens)}
          </a>
        )
      }
      case "image": {
        // Never loaded (the page's CSP would refuse it anyway): a link to it, named by its alt text.
        const image = token as Tokens.Image
        const href = safeHref(image.href)
        const label = `image: ${image.text || image.href}`
        return href === undefined ? (
          <Fragment key={index}>{image.raw}</Fragment>
        ) : (
          <a key={index} href={href} target="_blank" rel="noopener noreferrer">
            {label}
          </a>
        )
      }
      case "html":
        return <Fragment key={index}>{(token as Tokens.HTML).text}</Fragment>
      case "checkbox":
        return null
      default:
        return <Fragment key={index}>{token.raw}</Fragment>
    }
  })
