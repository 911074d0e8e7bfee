#!/usr/bin/env node
// Web console budgets (see docs/console.md): first-load JavaScript (gzip) against its 250 KB
// budget, the JavaScript bytes Chromium actually receives on a cold first load (what the server
// sends for its Accept-Encoding) against 150 KB, time to interactive on loopback, and rendering a
// 1,000-message thread. Runs the built server bundle and console (`pnpm build` first) in
// Debian's Chromium, loopback only.
//
//   node bench/console.mjs            # ≈ 20 s
//
// BENCH_RUNS [5] page loads per measure. BENCH_CONSOLE_DIR: another build to serve (an A/B
// against an older one). Exits 1 when a first-load budget is exceeded.

import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { log, median, removeDir, round, setUp, startServer, table, tmpDir, writeResults } from "./harness.mjs"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const dist = process.env.BENCH_CONSOLE_DIR ?? path.join(root, "packages/console/dist")
const budgetKiB = 250
const wireBudgetKiB = 150
const runs = Number(process.env.BENCH_RUNS ?? 5)

if (!existsSync(path.join(dist, "index.html"))) {
  console.error("[bench] packages/console/dist is missing: run `pnpm build` first")
  process.exit(1)
}

// 1. What index.html makes the browser load before anything is shown: its module script,
// module preloads and stylesheet (the other screens are lazy chunks, loaded on first visit).
const html = readFileSync(path.join(dist, "index.html"), "utf8")
const firstLoad = [...html.matchAll(/(?:src|href)="\/app\/(assets\/[^"]+)"/g)].map((match) => match[1])
const sizes = firstLoad.map((file) => {
  const bytes = readFileSync(path.join(dist, file))
  return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
})
const js = sizes.filter((entry) => entry.file.endsWith(".js"))
const jsGzipKiB = js.reduce((sum, entry) => sum + entry.gzip, 0) / 1024
log(`first-load JS: ${round(jsGzipKiB, 1)} KiB gzip (budget ${budgetKiB})`)

// 2 and 3 in Chromium against the real server.
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((candidate) => existsSync(candidate))
const results = { firstLoad: sizes, jsGzipKiB: round(jsGzipKiB, 1), budgetKiB }
if (chromium === undefined) {
  log("no Chromium installed: time to interactive and the long thread are not measured")
} else {
  const { chromium: playwright } = createRequire(path.join(root, "packages/console/package.json"))("playwright-core")
  const dataDir = tmpDir("aide-bench-console-")
  const server = await startServer({ dataDir, env: { AIDE_CONSOLE_DIR: dist } })
  const browser = await playwright.launch({
    executablePath: chromium,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"],
  })
  try {
    await setUp(server.url)
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: "correct horse battery staple" }),
    }).then((response) => response.json())
    const signedIn = async () => {
      const context = await browser.newContext()
      await context.addInitScript(
        (tokens) => localStorage.setItem("aide.console.tokens", tokens),
        JSON.stringify(login),
      )
      return context
    }

    // Time to interactive: navigation start → the message box is usable (signed in, cold cache).
    // Each cold load also counts the JavaScript bytes received (encoded, as on the wire).
    const tti = []
    const wire = []
    for (let i = 0; i < runs; i++) {
      const context = await signedIn()
      const page = await context.newPage()
      const scripts = []
      page.on("response", (response) => {
        if (response.url().endsWith(".js"))
          scripts.push(
            response
              .request()
              .sizes()
              .then((s) => s.responseBodySize),
          )
      })
      await page.goto(`${server.url}/app/`)
      await page.getByRole("textbox", { name: "Message" }).waitFor()
      tti.push(await page.evaluate(() => performance.now()))
      wire.push((await Promise.all(scripts)).reduce((sum, bytes) => sum + bytes, 0) / 1024)
      await context.close()
    }

    // A 1,000-message thread: the thread's answer is replaced by a synthetic one (500 exchanges
    // of markdown with code), so that only the console's rendering is measured.
    const messages = Array.from({ length: 1000 }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 === 0 ? "user" : "assistant",
      parts: [
        {
          type: "text",
          text:
            i % 2 === 0
              ? `Question ${i}: how do I do thing ${i}?`
              : `Answer ${i}: use **this**, then \`that\`.\n\n- one\n- two\n\n\`\`\`js\nconsole.log(${i})\n\`\`\``,
        },
      ],
    }))
    const detail = {
      thread: {
        id: "long",
        title: "A long thread",
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      },
      messages,
      forks: {},
      forkInfo: null,
    }
    const render = []
    const longFrames = []
    for (let i = 0; i < runs; i++) {
      const context = await signedIn()
      const page = await context.newPage()
      await page.route("**/api/threads/long", (route) => route.fulfill({ json: detail }))
      await page.route("**/api/chat/long/stream", (route) => route.fulfill({ status: 204 }))
      await page.goto(`${server.url}/app/settings`)
      await page.getByRole("heading", { name: "Settings" }).waitFor()
      const started = await page.evaluate(() => {
        const at = performance.now()
        history.pushState(null, "", "/app/chat/long")
        dispatchEvent(new PopStateEvent("popstate"))
        return at
      })
      await page.locator(".message").nth(999).waitFor()
      render.push((await page.evaluate(() => performance.now())) - started)
      // Scroll from top to bottom in steps; count frames longer than 50 ms (jank).
      longFrames.push(
        await page.evaluate(async () => {
          const log = document.querySelector(".messages")
          const frames = []
          let last = performance.now()
          let running = true
          const tick = (now) => {
            frames.push(now - last)
            last = now
            if (running) requestAnimationFrame(tick)
          }
          requestAnimationFrame(tick)
          for (let top = 0; top < log.scrollHeight; top += 600) {
            log.scrollTop = top
            await new Promise((resolve) => requestAnimationFrame(resolve))
          }
          running = false
          return frames.filter((frame) => frame > 50).length
        }),
      )
      await context.close()
    }
    Object.assign(results, {
      wireJsKiB: round(median(wire), 1),
      wireBudgetKiB,
      ttiMs: round(median(tti), 0),
      ttiRuns: tti.map((ms) => round(ms, 0)),
      thread1000RenderMs: round(median(render), 0),
      thread1000RenderRuns: render.map((ms) => round(ms, 0)),
      scrollLongFrames: longFrames,
    })
  } finally {
    await browser.close()
    await server.stop()
    removeDir(dataDir)
  }
}

console.log(
  table(
    ["measure", "value", "budget"],
    [
      ["first-load JS (gzip)", `${round(jsGzipKiB, 1)} KiB`, `< ${budgetKiB} KiB`],
      [
        "first-load JS over the wire (cold, median)",
        results.wireJsKiB === undefined ? "n/a" : `${results.wireJsKiB} KiB`,
        `< ${wireBudgetKiB} KiB`,
      ],
      ["time to interactive (loopback, median)", results.ttiMs === undefined ? "n/a" : `${results.ttiMs} ms`, ""],
      [
        "1,000-message thread rendered (median)",
        results.thread1000RenderMs === undefined ? "n/a" : `${results.thread1000RenderMs} ms`,
        "",
      ],
      ["frames > 50 ms while scrolling it", results.scrollLongFrames?.join(", ") ?? "n/a", ""],
    ],
  ),
)
log(`results in ${writeResults("console", results)}`)
if (jsGzipKiB > budgetKiB) {
  console.error(`[bench] first-load JS is over budget: ${round(jsGzipKiB, 1)} KiB > ${budgetKiB} KiB`)
  process.exit(1)
}
if (results.wireJsKiB !== undefined && results.wireJsKiB > wireBudgetKiB) {
  console.error(`[bench] first-load JS over the wire is over budget: ${results.wireJsKiB} KiB > ${wireBudgetKiB} KiB`)
  process.exit(1)
}
