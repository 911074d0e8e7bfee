/**
 * docs/operations.md's serverless module is the example's own code: copying either gives the
 * same handler signature (`waitUntil` and `remoteAddress` in the context), so the doc never
 * drifts from examples/serverless/src/aide.ts, which examples-serverless.test.ts runs.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const read = (path: string) => readFileSync(`${root}${path}`, "utf8")

/** The fenced `ts` block under "One deployment end to end". */
const docSnippet = (markdown: string): string => {
  const section = markdown.slice(markdown.indexOf("### One deployment end to end"))
  const block = /```ts\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error("docs/operations.md: no ts block under 'One deployment end to end'")
  return block[1]!
}

/** The example's code after its file comment. */
const exampleCode = (source: string): string => source.slice(source.indexOf("import "))

it("the doc's serverless module is examples/serverless/src/aide.ts, client address included", () => {
  const snippet = docSnippet(read("docs/operations.md"))
  expect(snippet).toContain("remoteAddress: context.remoteAddress")
  expect(snippet).toBe(exampleCode(read("examples/serverless/src/aide.ts")))
})
