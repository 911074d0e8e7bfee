/**
 * Every relative link of the repository's markdown leads somewhere in a clone: the file or
 * folder exists, and an anchor (`file.md#section`, `#section`) names a heading of that file (as
 * GitHub spells it) or an explicit `<a id>`. Links to the web are not fetched (no network here).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const skipped = new Set(["node_modules", "dist", ".git", ".aide", "coverage"])

const markdownFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    if (skipped.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return markdownFiles(path)
    return name.endsWith(".md") ? [path] : []
  })

/** The text outside fenced code blocks and comments. */
const unfenced = (markdown: string) =>
  markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/<!--[\s\S]*?-->/g, "")

/** The text outside code, inline code included: links there are examples, not links. */
const prose = (markdown: string) => unfenced(markdown).replace(/`[^`\n]*`/g, "")

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
const anchorsOf = (markdown: string): Set<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, heading] of unfenced(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "")
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!)
  return anchors
}

/** The relative link targets of a markdown file: inline links, images, and reference definitions. */
const linksOf = (markdown: string): Array<string> => {
  const text = prose(markdown)
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!)
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((match) => match[1]!)
  const html = [...text.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)].map((match) => match[1]!)
  return [...inline, ...references, ...html].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}

/** What is wrong with each relative link of `file` (empty: nothing). */
export const brokenLinks = (file: string, markdown = readFileSync(file, "utf8")): Array<string> => {
  const problems: Array<string> = []
  for (const link of linksOf(markdown)) {
    const [path = "", anchor] = link.split("#", 2) as [string, string | undefined]
    const target = path === "" ? file : resolve(dirname(file), decodeURIComponent(path))
    if (path !== "" && !existsSync(target)) {
      problems.push(`${link}: no such file (${relative(root, target)})`)
      continue
    }
    if (anchor === undefined || anchor === "" || !target.endsWith(".md")) continue
    const anchors = anchorsOf(target === file ? markdown : readFileSync(target, "utf8"))
    if (!anchors.has(decodeURIComponent(anchor).toLowerCase()))
      problems.push(`${link}: no heading #${anchor} in ${relative(root, target)}`)
  }
  return problems
}

describe("the repository's markdown links", () => {
  it("finds the markdown (README, docs/, packages, examples)", () => {
    const files = markdownFiles(root).map((file) => relative(root, file))
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/cli.md", "docs/spec.md", "docs/design.md"]))
  })

  it("catches a missing file, a missing anchor, and leaves code and the web alone", () => {
    const file = join(root, "docs", "example.md")
    const markdown = [
      "# Title",
      "## A section: here",
      "[ok](cli.md) [ok](#a-section-here) [ok](cli.md#aide-doctor) [web](https://example.com/x)",
      "[gone](../../no-such-folder/SPEC.md) [no anchor](#nowhere) [no heading](cli.md#nowhere)",
      "`[code](missing.md)`",
      "```md\n[fenced](missing.md)\n```",
    ].join("\n")
    expect(brokenLinks(file, markdown)).toEqual([
      "../../no-such-folder/SPEC.md: no such file (../no-such-folder/SPEC.md)",
      "#nowhere: no heading #nowhere in docs/example.md",
      "cli.md#nowhere: no heading #nowhere in docs/cli.md",
    ])
  })

  for (const file of markdownFiles(root)) {
    it(`${relative(root, file)}: every relative link leads somewhere`, () => {
      expect(brokenLinks(file)).toEqual([])
    })
  }
})
