// Writes packages/kernel/runtime/sdk/split.mjs: @aide/plugin's `splitMessage` (packages/plugin/src/split.ts)
// with its types removed, for the SDK copy that sandboxed plugins import (they reach no node_modules).
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = fileURLToPath(new URL("..", import.meta.url))
export const header =
  "// GENERATED from packages/plugin/src/split.ts by scripts/generate-sdk-split.mjs (types removed), so a\n" +
  "// compartment can import `splitMessage` without node_modules; sdk-copy.test.ts fails when they differ.\n"

export const generated = () => {
  const source = readFileSync(`${root}packages/plugin/src/split.ts`, "utf8")
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  })
  return header + outputText
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  writeFileSync(`${root}packages/kernel/runtime/sdk/split.mjs`, generated())
