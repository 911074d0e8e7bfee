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
 * The built console: `AIDE_CONSOLE_DIR`, else `packages/console/dist` beside this package, found
 * from the bundle (`dist/main.js`) or the sources (`src/http/Console.ts`, tests).
 */
export const findConsoleDir = (explicit?: string): string | undefined => {
  if (explicit !== undefined) return explicit
  const here = Path.dirname(fileURLToPath(import.meta.url))
  return [Path.join(here, "..", "..", "console", "dist"), Path.join(here, "..", "..", "..", "console", "dist")].find(
    (dir) => existsSync(Path.join(dir, "index.html")),
  )
}

interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

/** Files are read once and kept: the whole console is a few hundred KB. */
const assetReader = (dir: string) => {
  const cache = new Map<string, Asset | null>()
  const root = Path.resolve(dir)
  return (relative: string): Asset | null => {
    const cached = cache.get(relative)
    if (cached !== undefined) return cached
    const file = Path.resolve(root, relative)
    // `..` and encoded separators never leave the console's folder.
    const inside = file.startsWith(root + Path.sep)
    const asset =
      inside && existsSync(file) && statSync(file).isFile()
        ? {
            body: readFileSync(file),
            contentType: contentTypes[Path.extname(file)] ?? "application/octet-stream",
          }
        : null
    cache.set(relative, asset)
    return asset
  }
}

const notBuilt = HttpServerResponse.text(
  "The web console is not built: run `pnpm build` (or `pnpm start`, which builds it when stale).",
  { status: 503, headers: { "cache-control": "no-store" } },
)

/**
 * `GET /app/*`: hashed assets (`/app/assets/…`) with a year's cache, anything else that is not a
 * file gets `index.html` (deep links: the app routes on the client), never cached. Every answer
 * carries the console's Content-Security-Policy.
 */
export const layer = (options: { readonly dir?: string | undefined } = {}) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const dir = findConsoleDir(options.dir)
      const read = dir === undefined ? undefined : assetReader(dir)
      const serve = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        if (read === undefined) return notBuilt
        const pathname = decodeURIComponent(new URL(request.url, "http://aide").pathname)
        const relative = pathname.slice(consolePath.length)
        const asset = relative === "" ? null : read(relative)
        if (asset !== null) {
          const immutable = relative.startsWith("assets/")
          return HttpServerResponse.uint8Array(asset.body, {
            contentType: asset.contentType,
            headers: {
              ...securityHeaders,
              "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
            },
          })
        }
        // A missing hashed asset is a 404, not the app (a stale tab after an upgrade).
        if (relative.startsWith("assets/")) return HttpServerResponse.text("not found", { status: 404 })
        const index = read("index.html")
        if (index === null) return notBuilt
        return HttpServerResponse.uint8Array(index.body, {
          contentType: index.contentType,
          headers: { ...securityHeaders, "cache-control": "no-cache" },
        })
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
