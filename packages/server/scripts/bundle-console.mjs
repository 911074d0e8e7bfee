#!/usr/bin/env node
// Copies the built web console (packages/console/dist) into this package's `console/` folder
// before `pnpm pack`/`publish` (the `prepack` script), so an installed server serves /app/
// without the console's sources or Vite. The console is built by `pnpm build`; packing without
// it fails rather than publish a server whose /app/ answers 503. `--remove` (the `postpack`
// script) deletes the copy again, so the clone keeps serving the console's own fresh build.
import { cpSync, existsSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = fileURLToPath(new URL("../../console/dist/", import.meta.url))
const target = fileURLToPath(new URL("../console/", import.meta.url))

if (process.argv.includes("--remove")) {
  rmSync(target, { recursive: true, force: true })
  process.exit(0)
}
if (!existsSync(`${built}index.html`)) {
  process.stderr.write(`the web console is not built (${built}): run \`pnpm build\` first\n`)
  process.exit(1)
}
rmSync(target, { recursive: true, force: true })
cpSync(built, target, { recursive: true })
