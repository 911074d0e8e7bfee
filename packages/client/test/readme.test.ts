import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as AideClient from "@aide/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChatTestServer, password, startWithClient } from "./support.js"

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8")

/** The first ```ts block that starts with the client's import. */
const exampleOf = (markdown: string) => {
  const match = /```ts\n(import \{ createAideClient \} from "@aide\/client"\n[\s\S]*?)```/.exec(markdown)
  if (match === null) throw new Error("no client example found")
  return match[1]!
}

let server: ChatTestServer
beforeAll(async () => {
  ;({ server } = await startWithClient())
})
afterAll(() => server.close())

describe("the README example", () => {
  it("is the same in the root README and the package README", () => {
    expect(exampleOf(read("../../../README.md"))).toBe(exampleOf(read("../README.md")))
  })

  it("runs as written against a real server", async () => {
    server.model.script({ text: "It is noon." })
    const body = exampleOf(read("../README.md"))
      .replace(/^import .*\n/, "")
      .replace("http://127.0.0.1:4111", server.url)
    const output: Array<string> = []
    const fakeProcess = { stdout: { write: (text: string) => output.push(text) } }
    const fakeConsole = { log: (text: string) => output.push(text) }
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor
    await new AsyncFunction("createAideClient", "password", "process", "console", body)(
      AideClient.createAideClient,
      password,
      fakeProcess,
      fakeConsole,
    )
    expect(output.join("")).toMatch(/^It is noon\.\n2 messages in [\w-]+$/)
  })
})
