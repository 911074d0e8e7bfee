import hljs from "highlight.js/lib/core"
import bash from "highlight.js/lib/languages/bash"
import css from "highlight.js/lib/languages/css"
import diff from "highlight.js/lib/languages/diff"
import go from "highlight.js/lib/languages/go"
import java from "highlight.js/lib/languages/java"
import javascript from "highlight.js/lib/languages/javascript"
import json from "highlight.js/lib/languages/json"
import python from "highlight.js/lib/languages/python"
import rust from "highlight.js/lib/languages/rust"
import sql from "highlight.js/lib/languages/sql"
import typescript from "highlight.js/lib/languages/typescript"
import xml from "highlight.js/lib/languages/xml"
import yaml from "highlight.js/lib/languages/yaml"

/**
 * Code highlighting, loaded on the first code block (its own chunk, so the first load stays within
 * the console's budget): highlight.js's core with the languages answers use most.
 */
for (const [name, language] of Object.entries({
  bash,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, language)

/** Highlighted code as a tree: text, or a scope's class with its children. */
export type Highlighted = string | { readonly className: string; readonly children: ReadonlyArray<Highlighted> }

const entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" }

/**
 * highlight.js answers HTML: only `<span class="…">`, `</span>` and escaped text. Read back into a
 * tree, so the page never takes an HTML string (the console renders no HTML at all).
 */
const toTree = (html: string): Array<Highlighted> => {
  const root: Array<Highlighted> = []
  const stack: Array<{ className: string; children: Array<Highlighted> }> = []
  const current = () => stack.at(-1)?.children ?? root
  for (const part of html.split(/(<span class="[^"]*">|<\/span>)/)) {
    if (part === "") continue
    const open = /^<span class="([^"]*)">$/.exec(part)
    if (open !== null) {
      const node = { className: open[1] ?? "", children: [] as Array<Highlighted> }
      current().push(node)
      stack.push(node)
    } else if (part === "</span>") stack.pop()
    else current().push(part.replace(/&(amp|lt|gt|quot|#x27);/g, (entity) => entities[entity] ?? entity))
  }
  return root
}

/** The code highlighted in `lang` (or guessed among the registered languages when none is given). */
export const highlight = (code: string, lang: string): Array<Highlighted> | undefined => {
  const language = lang.toLowerCase()
  if (language !== "" && hljs.getLanguage(language) === undefined) return undefined
  const result = language === "" ? hljs.highlightAuto(code) : hljs.highlight(code, { language, ignoreIllegals: true })
  return toTree(result.value)
}
