import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { AideApi } from "@aide/server"
import { OpenApi } from "@effect/platform"
import openapiTS, { astToString } from "openapi-typescript"
import { describe, expect, it } from "vitest"

const target = fileURLToPath(new URL("../src/generated/openapi.ts", import.meta.url))

const header = `/**
 * Generated from the server's OpenAPI document (\`OpenApi.fromApi(AideApi)\`, what
 * \`GET /api/openapi.json\` serves) by openapi-typescript. Do not edit: run
 * \`pnpm --filter @aide/client generate\`; test/openapi-types.test.ts fails when this is stale.
 */

`

/** The types the client is written against, from the same HttpApi the server is built from. */
const generate = async () => header + astToString(await openapiTS(OpenApi.fromApi(AideApi) as any))

describe("the generated contract types", () => {
  it("match the server's OpenAPI document (regenerate with AIDE_UPDATE_OPENAPI=1)", async () => {
    const fresh = await generate()
    if (process.env.AIDE_UPDATE_OPENAPI === "1") writeFileSync(target, fresh)
    expect(readFileSync(target, "utf8"), "src/generated/openapi.ts is stale: pnpm --filter @aide/client generate").toBe(
      fresh,
    )
  })
})
