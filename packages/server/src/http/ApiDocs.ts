import { createHash } from "node:crypto"
import { HttpApi, HttpApiBuilder, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer } from "effect"

/**
 * The API reference page (Scalar), self-contained: the page and its script come from this
 * server, nothing from another origin (HttpApiScalar's own page inlines the 3.3 MB script and
 * loads fonts from Scalar's host), and a strict Content-Security-Policy keeps it that way:
 * scripts only from this origin, no inline script or eval, requests only to this origin. Styles allow
 * 'unsafe-inline' because the Scalar bundle injects its CSS as <style> elements.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  // WebAssembly only (the bundle compiles a wasm module), not JavaScript eval.
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ")

/** Scalar options: local fonts, no link to Scalar's hosted client, no telemetry. */
const scalarConfiguration = {
  _integration: "html",
  withDefaultFonts: false,
  hideClientButton: true,
  telemetry: false,
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** JSON inside a <script> data block: `<` escaped so that nothing in it can close the element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))

/**
 * The Scalar standalone bundle, taken from the page `HttpApiScalar.layer` renders (its only
 * public form): the page's third inline script. Fails loudly if that layout ever changes.
 */
const scalarBundle = (api: HttpApi.Api["Type"]) =>
  Effect.gen(function* () {
    const Scalar = yield* Effect.promise(() => import("@effect/platform/HttpApiScalar"))
    const app = yield* Effect.flatMap(HttpApiBuilder.Router, (router) => router.router).pipe(
      Effect.provide(
        Scalar.layer({ path: "/" }).pipe(
          Layer.provideMerge(HttpApiBuilder.Router.Live),
          Layer.provide(Layer.succeed(HttpApi.Api, api)),
        ),
      ),
    )
    const response = yield* app.pipe(
      Effect.provideService(
        HttpServerRequest.HttpServerRequest,
        HttpServerRequest.fromWeb(new Request("http://docs/")),
      ),
      Effect.scoped,
    )
    const html = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""
    // Spec data block, configuration script, bundle: an inline script holds no `</script>`.
    const blocks = html.split("</script>")
    const opening = "<script>"
    const bundleBlock = blocks[2] ?? ""
    const start = bundleBlock.indexOf(opening)
    if (blocks.length !== 4 || start === -1) {
      return yield* Effect.dieMessage("HttpApiScalar's page has an unexpected layout: cannot extract the Scalar bundle")
    }
    return bundleBlock.slice(start + opening.length)
  })

/** The page and its script (served at `scriptPath`), built once per process. */
export const make = (api: HttpApi.Api["Type"], scriptPath: `/${string}`) =>
  Effect.gen(function* () {
    const bundle = yield* scalarBundle(api)
    const spec = OpenApi.fromApi(api.api)
    // The URL changes with the bundle, so browsers may cache it for good.
    const hash = createHash("sha256").update(bundle).digest("hex").slice(0, 16)
    const description = spec.info.description
    const page = `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(spec.info.title)}</title>
    ${description === undefined ? "" : `<meta name="description" content="${escapeHtml(description)}" />`}
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json" data-configuration="${escapeHtml(JSON.stringify(scalarConfiguration))}">${scriptJson(spec)}</script>
    <script src="${scriptPath}?v=${hash}"></script>
  </body>
</html>`
    const common = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" }
    return {
      page: HttpServerResponse.html(page).pipe(
        HttpServerResponse.setHeaders({ ...common, "content-security-policy": contentSecurityPolicy }),
      ),
      script: HttpServerResponse.text(bundle, { contentType: "text/javascript; charset=utf-8" }).pipe(
        HttpServerResponse.setHeaders({ ...common, "cache-control": "public, max-age=31536000, immutable" }),
      ),
    }
  })
