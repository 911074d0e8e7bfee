import katex from "katex"

/**
 * Math typeset by KaTeX, loaded only when a message has math (its own chunk: the first load does
 * not carry it). KaTeX writes MathML alone here (`output: "mathml"`), which the browser lays out
 * itself: no KaTeX stylesheet, no fonts to fetch. Its HTML is read back into a tree of MathML
 * elements and attributes from allowlists, so the page never takes an HTML string.
 */
export type MathNode =
  | string
  | {
      readonly tag: string
      readonly attributes: Readonly<Record<string, string>>
      readonly children: ReadonlyArray<MathNode>
    }

const tags = new Set([
  "math",
  "semantics",
  "annotation",
  "mrow",
  "mi",
  "mn",
  "mo",
  "ms",
  "mtext",
  "mspace",
  "msub",
  "msup",
  "msubsup",
  "mfrac",
  "msqrt",
  "mroot",
  "mstyle",
  "mpadded",
  "mphantom",
  "menclose",
  "merror",
  "mtable",
  "mtr",
  "mtd",
  "mlabeledtr",
  "munder",
  "mover",
  "munderover",
  "mmultiscripts",
  "mprescripts",
  "none",
])

const attributes = new Set([
  "display",
  "displaystyle",
  "scriptlevel",
  "mathvariant",
  "encoding",
  "stretchy",
  "fence",
  "separator",
  "form",
  "lspace",
  "rspace",
  "minsize",
  "maxsize",
  "largeop",
  "movablelimits",
  "symmetric",
  "accent",
  "accentunder",
  "linethickness",
  "width",
  "height",
  "depth",
  "voffset",
  "notation",
  "columnalign",
  "rowalign",
  "columnspacing",
  "rowspacing",
  "columnlines",
  "rowlines",
  "frame",
  "framespacing",
  "equalrows",
  "equalcolumns",
  "side",
])

const toTree = (node: Node): MathNode | undefined => {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? ""
  if (node.nodeType !== Node.ELEMENT_NODE) return undefined
  const element = node as Element
  if (!tags.has(element.localName)) return undefined
  const kept: Record<string, string> = {}
  for (const attribute of Array.from(element.attributes))
    if (attributes.has(attribute.name)) kept[attribute.name] = attribute.value
  const children = Array.from(element.childNodes).flatMap((child) => toTree(child) ?? [])
  return { tag: element.localName, attributes: kept, children }
}

/** `tex` as MathML (a tree), or undefined when KaTeX cannot read it (the source is shown then). */
export const renderMath = (tex: string, display: boolean): MathNode | undefined => {
  const html = katex.renderToString(tex, {
    output: "mathml",
    displayMode: display,
    throwOnError: false,
    trust: false,
    strict: "ignore",
    maxSize: 100,
    maxExpand: 1000,
  })
  const math = new DOMParser().parseFromString(html, "text/html").querySelector("math")
  return math === null ? undefined : toTree(math)
}
