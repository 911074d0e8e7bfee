// The browser build's size: src/index.ts bundled for the browser platform, minified, gzipped.
// esbuild fails on any Node built-in for this platform, so a clean build is also that check.
import { gzipSync } from "node:zlib"
import { build } from "esbuild"

/** `{ minified, gzipped, text }` of the browser bundle (`ai` stays external: types only). */
export const browserBuild = async () => {
  const result = await build({
    entryPoints: [new URL("../src/index.ts", import.meta.url).pathname],
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    write: false,
    external: ["ai"],
    logLevel: "silent",
  })
  const bytes = result.outputFiles[0].contents
  return { minified: bytes.length, gzipped: gzipSync(bytes).length, text: result.outputFiles[0].text }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { minified, gzipped } = await browserBuild()
  console.log(`browser build: ${minified} bytes minified, ${gzipped} bytes gzipped`)
}
