/**
 * `pnpm release:check`: every public package packed as it would be published (`pnpm pack`, after
 * `pnpm build`), then each tarball linted by publint (strict: its suggestions count too) and, when
 * it ships type declarations, checked by Are the Types Wrong (attw) for the resolutions its
 * package supports: ESM-only packages under node16 ESM and bundlers, dual ones under node16 CJS
 * too (attw's `esm-only` and `node16` profiles; node10 resolution is not supported). Exit 1 with
 * every problem listed. `packages/cli/test/registry.test.ts` runs the same checks on the tarballs
 * it publishes, so CI packs once.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core"
import { filterProblems, problemKindInfo } from "@arethetypeswrong/core/problems"
import { publint } from "publint"
import { formatMessage } from "publint/utils"

export interface TarballReport {
  readonly name: string
  readonly problems: ReadonlyArray<string>
}

type Manifest = { name: string; version: string; private?: boolean; exports?: unknown; types?: string }

const resolutionKinds = (manifest: Manifest) =>
  // A `require` condition anywhere in the exports map: the package is dual (ESM and CommonJS).
  JSON.stringify(manifest.exports ?? {}).includes('"require"')
    ? (["node16-cjs", "node16-esm", "bundler"] as const)
    : (["node16-esm", "bundler"] as const)

/** publint's and attw's findings on one tarball, each as a line (none: ready to publish). */
export const checkTarball = async (tarball: string): Promise<TarballReport> => {
  const data = readFileSync(tarball)
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  const pkg = createPackageFromTarballData(bytes)
  const manifest = JSON.parse(pkg.readFile(`/node_modules/${pkg.packageName}/package.json`)) as Manifest
  const problems: Array<string> = []
  const linted = await publint({ pack: { tarball: bytes.slice().buffer }, level: "suggestion", strict: true })
  for (const message of linted.messages)
    problems.push(`publint ${message.type}: ${formatMessage(message, linted.pkg, { color: false }) ?? message.code}`)
  const analysis = await checkPackage(pkg)
  if (analysis.types === false) {
    if (manifest.types !== undefined) problems.push(`attw: declares types (${manifest.types}) but ships none`)
  } else {
    const found = new Set(
      resolutionKinds(manifest).flatMap((kind) => filterProblems(analysis, { resolutionKind: kind })),
    )
    for (const problem of found) {
      const entrypoint = "entrypoint" in problem ? ` (${String(problem.entrypoint)})` : ""
      problems.push(
        `attw: ${problemKindInfo[problem.kind].title}${entrypoint}: ${problemKindInfo[problem.kind].docsUrl}`,
      )
    }
  }
  return { name: manifest.name, problems }
}

/** The workspace's packages that are published: every `packages/*` not marked `private`. */
export const publicPackages = (root: string) =>
  readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name))
    .filter((folder) => {
      try {
        return (JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as Manifest).private !== true
      } catch {
        return false
      }
    })

const main = async () => {
  const root = fileURLToPath(new URL("..", import.meta.url))
  const packs = mkdtempSync(join(tmpdir(), "aide-release-check-"))
  try {
    // Each package's own `pnpm pack`: prepack scripts run (the server copies the console in) and
    // `workspace:` ranges become versions, as in a release.
    for (const folder of publicPackages(root))
      await promisify(execFile)("npx", ["-y", "pnpm@10.20.0", "pack", "--pack-destination", packs], { cwd: folder })
    const reports = await Promise.all(readdirSync(packs).map((file) => checkTarball(join(packs, file))))
    for (const report of reports) {
      console.log(`${report.problems.length === 0 ? "✓" : "✗"} ${report.name}`)
      for (const problem of report.problems) console.log(`  ${problem}`)
    }
    process.exitCode = reports.some((report) => report.problems.length > 0) ? 1 : 0
  } finally {
    rmSync(packs, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main()
