// The runtime of `@aide/plugin` (packages/plugin/src/index.ts) as a sandboxed plugin imports it:
// the SDK's types vanish when compiled and what is left are these identity helpers and
// `splitMessage`. This copy
// ships with the runner, so a compartment reaches no node_modules at all; a kernel test keeps it
// in step with the package (same exports, same behaviour).

/** The manifest, typed. */
export const definePlugin = (manifest) => manifest

/** A tool, typed. */
export const defineTool = (tool) => tool

/** An agent, typed. */
export const defineAgent = (agent) => agent

/** A channel (or a function of the plugin's settings returning one), typed. */
export const defineChannel = (channel) => channel

// `splitMessage` (packages/plugin/src/split.ts with its types stripped by esbuild; see the
// comments there): chunks of at most `limit` characters cut on paragraph, line, then word
// boundaries, code fences closed and reopened. sdk-copy.test.ts holds it equal to the package's.
const fenceOpen = /^ {0,3}(`{3,}|~{3,})/
const closes = (line, marker) => {
  const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)
  return match !== null && match[1][0] === marker[0] && match[1].length >= marker.length
}
const blocksOf = (text) => {
  const blocks = []
  let prose = []
  const endProse = () => {
    if (prose.some((line) => line.trim() !== "")) blocks.push({ text: prose.join("\n"), fence: null, marker: "" })
    prose = []
  }
  const lines2 = text.split("\n")
  for (let index = 0; index < lines2.length; index++) {
    const line = lines2[index]
    const open = fenceOpen.exec(line)
    if (open !== null) {
      endProse()
      const marker = open[1]
      const code = [line]
      while (++index < lines2.length) {
        code.push(lines2[index])
        if (closes(lines2[index], marker)) break
      }
      blocks.push({ text: code.join("\n"), fence: line, marker })
    } else if (line.trim() === "") {
      endProse()
    } else {
      prose.push(line)
    }
  }
  endProse()
  return blocks
}
const cutAt = (text, limit) => {
  const space = text.lastIndexOf(" ", limit)
  if (space > 0) return { head: text.slice(0, space), rest: text.slice(space + 1) }
  let at = limit
  const code = text.charCodeAt(at - 1)
  if (at > 1 && code >= 55296 && code <= 56319) at -= 1
  return { head: text.slice(0, at), rest: text.slice(at) }
}
const pack = (units, glue, limit, cut) => {
  const pieces = []
  let current = null
  for (const unit of units) {
    const joined = current === null ? unit : `${current}${glue}${unit}`
    if (joined.length <= limit) {
      current = joined
      continue
    }
    if (current !== null) pieces.push(current)
    current = null
    const parts = unit.length <= limit ? [unit] : cut(unit)
    pieces.push(...parts.slice(0, -1))
    current = parts.at(-1) ?? null
  }
  if (current !== null) pieces.push(current)
  return pieces
}
const words = (line, limit) => {
  const pieces = []
  let rest = line
  while (rest.length > limit) {
    const { head, rest: tail } = cutAt(rest, limit)
    pieces.push(head)
    rest = tail
  }
  return [...pieces, rest]
}
const lines = (paragraph, limit) => pack(paragraph.split("\n"), "\n", limit, (line) => words(line, limit))
const codePieces = (block, limit) => {
  const fence = block.fence
  const all = block.text.split("\n").slice(1)
  const closed = all.length > 0 && closes(all.at(-1), block.marker)
  const body = closed ? all.slice(0, -1) : all
  const closing = closed ? all.at(-1).trim() : block.marker
  const room = limit - fence.length - closing.length - 2
  if (room < 1) return lines(block.text, limit)
  const hard = (line) => {
    const pieces = []
    for (let at = 0; at < line.length; at += room) pieces.push(line.slice(at, at + room))
    return pieces
  }
  return pack(body.length === 0 ? [""] : body, "\n", room, hard).map(
    (piece) => `${fence}
${piece}
${closing}`,
  )
}
export const splitMessage = (text, limit) => {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError("splitMessage: limit must be a positive integer")
  const blocks = blocksOf(text.replace(/\r\n/g, "\n"))
  return pack(
    blocks.map((block) => block.text),
    "\n\n",
    limit,
    (unit) => {
      const block = blocks.find((candidate) => candidate.text === unit)
      return block.fence === null ? lines(unit, limit) : codePieces(block, limit)
    },
  )
}
