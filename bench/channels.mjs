// Runs every channel benchmark in bench/channels/ (each `<name>.mjs` but support.mjs), one after
// another in its own process, and prints their figures as a table: time from a platform message
// to the first outbound message over each channel's fake, median and p95.
//
//   node bench/channels.mjs              # env BENCH_MESSAGES, BENCH_WARMUP are passed on
//   node bench/channels.mjs telegram     # only the named ones
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"

const folder = fileURLToPath(new URL("./channels/", import.meta.url))
const wanted = process.argv.slice(2)
const files = readdirSync(folder)
  .filter((file) => file.endsWith(".mjs") && file !== "support.mjs")
  .filter((file) => wanted.length === 0 || wanted.includes(file.replace(/\.mjs$/, "")))
  .sort()

const run = (file) =>
  new Promise((resolve) => {
    // tsx: a benchmark may import the harness from its TypeScript source.
    const child = spawn(process.execPath, ["--import", "tsx", `${folder}${file}`], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    let output = ""
    child.stdout.on("data", (chunk) => {
      output += chunk
    })
    child.on("close", (code) => {
      const line = output
        .split("\n")
        .reverse()
        .find((candidate) => candidate.startsWith("{"))
      resolve(code === 0 && line !== undefined ? JSON.parse(line) : { channel: file, error: `exited ${code}` })
    })
  })

const rows = []
for (const file of files) {
  process.stderr.write(`running ${file}…\n`)
  rows.push(await run(file))
}
console.log("| channel | messages | median | p95 |")
console.log("|---|---|---|---|")
for (const row of rows) {
  console.log(
    row.error === undefined
      ? `| ${row.channel} | ${row.n} | ${row.medianMs} ms | ${row.p95Ms} ms |`
      : `| ${row.channel} | – | ${row.error} | |`,
  )
}
if (rows.some((row) => row.error !== undefined)) process.exitCode = 1
