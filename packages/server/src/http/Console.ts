import { existsSync, readFileSync, statSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"

/** Where the console is served (packages/console, built by Vite with `base: "/app/"`). */
export const consolePath = "/app/"

/**
 * The console's policy: its own scripts and styles only (Vite emits no inline script), requests
 * only to this origin (the API), images from itself, data: and blob: (pasted attachments).
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ")

const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
}

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".webmanifest": "application/manifest+json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
}

/**
 * The built console: `AIDE_CONSOLE_DIR`, else `packages/console/dist` beside this package (a
 * clone, where `aide start` rebuilds it), else the copy the package was published with
 * (`console/`, written at pack time by scripts/bundle-console.mjs), found from the bundle
 * (`dist/main.js`) or the sources (`src/http/Console.ts`, tests).
 */
export const findConsoleDir = (explicit?: string): string | undefined => {
  if (explicit !== undefined) return explicit
  const here = Path.dirname(fileURLToPath(import.meta.url))
  return [
    Path.join(here, "..", "..", "console", "dist"),
    Path.join(here, "..", "..", "..", "console", "dist"),
    Path.join(here, "..", "console"),
    Path.join(here, "..", "..", "console"),
  ].find((dir) => existsSync(Path.join(dir, "index.html")))
}

interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
  /** The build's precompressed copies (`<file>.br`, `<file>.gz`), when it wrote them. */
  readonly br: Uint8Array | undefined
  readonly gzip: Uint8Array | undefined
}

const readIfFile = (file: string) => (existsSync(file) && statSync(file).isFile() ? readFileSync(file) : undefined)

/**
 * Files are read once and kept (the whole console is a few hundred KB), for as long as the
 * build they come from: a new build (another `index.html`) empties the cache, so a console built
 * while the server runs (`aide start` builds it in the background) is served as soon as it is there.
 */
const assetReader = (dir: string) => {
  const cache = new Map<string, Asset | null>()
  const root = Path.resolve(dir)
  const index = Path.join(root, "index.html")
  let build: string | undefined
  return (relative: string): Asset | null => {
    const stat = existsSync(index) ? statSync(index) : undefined
    // A new build writes a new file: another inode, time or size.
    const current = stat === undefined ? "" : `${stat.ino}:${stat.mtimeMs}:${stat.size}`
    if (current !== build) {
      cache.clear()
      build = current
    }
    const cached = cache.get(relative)
    if (cached !== undefined) return cached
    const file = Path.resolve(root, relative)
    // `..` and encoded separators never leave the console's folder.
    const inside = file.startsWith(root + Path.sep)
    const body = inside ? readIfFile(file) : undefined
    const asset =
      body === undefined
        ? null
        : {
            body,
            contentType: contentTypes[Path.extname(file)] ?? "application/octet-stream",
            br: readIfFile(`${file}.br`),
            gzip: readIfFile(`${file}.gz`),
          }
    // A file missing during a build may come with it: only hits are kept before there is an index.
    if (asset !== null || current !== "") cache.set(relative, asset)
    return asset
  }
}

/**
 * Which precompressed copy `accept-encoding` takes: brotli before gzip at equal weight, none
 * that it refuses (`;q=0`). Unknown or absent header: the file as it is.
 */
const chooseEncoding = (acceptEncoding: string | undefined, asset: Asset): "br" | "gzip" | undefined => {
  if (acceptEncoding === undefined) return undefined
  const weights = new Map<string, number>()
  for (const entry of acceptEncoding.split(",")) {
    const [name, ...params] = entry.trim().toLowerCase().split(";")
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    if (name) weights.set(name, q === undefined ? 1 : Number(q))
  }
  const weight = (name: string) => weights.get(name) ?? weights.get("*") ?? 0
  const candidates = [
    { name: "br" as const, body: asset.br },
    { name: "gzip" as const, body: asset.gzip },
  ].filter((c) => c.body !== undefined && weight(c.name) > 0)
  candidates.sort((a, b) => weight(b.name) - weight(a.name))
  return candidates[0]?.name
}

/** The asset, compressed as the client accepts; `Vary` says the answer depends on it. */
const assetResponse = (asset: Asset, acceptEncoding: string | undefined, headers: Record<string, string>) => {
  const compressible = asset.br !== undefined || asset.gzip !== undefined
  const encoding = chooseEncoding(acceptEncoding, asset)
  const body = encoding === "br" ? asset.br! : encoding === "gzip" ? asset.gzip! : asset.body
  return HttpServerResponse.uint8Array(body, {
    contentType: asset.contentType,
    headers: {
      ...securityHeaders,
      ...headers,
      ...(compressible ? { vary: "accept-encoding" } : {}),
      ...(encoding === undefined ? {} : { "content-encoding": encoding }),
    },
  })
}

const notBuilt = HttpServerResponse.text(
  "The web console is not built: run `pnpm build` (or `pnpm start`, which builds it when stale).",
  { status: 503, headers: { "cache-control": "no-store" } },
)

/**
 * While `aide start` builds the console in the background: a page that says so and looks again
 * every two seconds (a meta refresh: the console's CSP allows no inline script). The API
 * answers meanwhile.
 */
const building = HttpServerResponse.text(
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Aide: building…</title></head>
<body style="font-family: system-ui, sans-serif; display: grid; place-items: center; min-height: 90vh">
<main><h1>Building the web console…</h1><p>This page reloads by itself when it is ready (the first start takes a little while). The API is already answering.</p></main></body></html>`,
  {
    status: 503,
    contentType: "text/html; charset=utf-8",
    headers: { ...securityHeaders, "cache-control": "no-store", "retry-after": "2" },
  },
)

/** Set by `aide start` (same process) while it builds the console. */
const isBuilding = () => process.env.AIDE_CONSOLE_BUILDING === "1"

/**
 * `GET /app/*`: hashed assets (`/app/assets/…`) with a year's cache, anything else that is not a
 * file gets `index.html` (deep links: the app routes on the client), never cached. Assets the
 * build precompressed are sent brotli or gzip encoded as `Accept-Encoding` allows. Every answer
 * carries the console's Content-Security-Policy.
 */
export const layer = (options: { readonly dir?: string | undefined } = {}) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      // A console not built yet (a fresh clone's first start) is looked for again until it is.
      let read: ReturnType<typeof assetReader> | undefined
      const reader = () => {
        if (read !== undefined) return read
        const dir = findConsoleDir(options.dir)
        if (dir !== undefined) read = assetReader(dir)
        return read
      }
      const serve = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const read = reader()
        const missing = () => (isBuilding() ? building : notBuilt)
        if (read === undefined) return missing()
        const pathname = decodeURIComponent(new URL(request.url, "http://aide").pathname)
        const relative = pathname.slice(consolePath.length)
        const acceptEncoding = request.headers["accept-encoding"]
        const asset = relative === "" ? null : read(relative)
        if (asset !== null) {
          const immutable = relative.startsWith("assets/")
          return assetResponse(asset, acceptEncoding, {
            "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
          })
        }
        // A missing hashed asset is a 404, not the app (a stale tab after an upgrade).
        if (relative.startsWith("assets/")) return HttpServerResponse.text("not found", { status: 404 })
        const index = read("index.html")
        if (index === null) return missing()
        return assetResponse(index, acceptEncoding, { "cache-control": "no-cache" })
      })
      // The wildcard does not match the folder itself.
      yield* router.get(consolePath, serve)
      yield* router.get("/app/*", serve)
    }),
  )

/** Whether a request for `/` comes from a browser navigation (HTML wanted before JSON). */
export const wantsHtml = (accept: string | undefined) => {
  if (accept === undefined) return false
  const html = accept.indexOf("text/html")
  const json = accept.indexOf("application/json")
  return html !== -1 && (json === -1 || html < json)
}

/**
 * A browser opening `/` lands on the console; API clients still get the status JSON. `/app`
 * (no slash) goes to `/app/` (the router treats the two alike, so it is decided here).
 */
export const rootRedirect: Layer.Layer<never> = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (request.method !== "GET") return app
    if (request.url === "/app" || request.url.startsWith("/app?"))
      return Effect.succeed(HttpServerResponse.redirect(consolePath, { status: 301 }))
    if (request.url === "/" && wantsHtml(request.headers.accept))
      return Effect.succeed(HttpServerResponse.redirect(consolePath, { status: 302, headers: { vary: "accept" } }))
    return app
  }),
)
