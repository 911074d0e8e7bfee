import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"

const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

/**
 * A TypeScript expression that satisfies `schema` as openapi-typescript types it: the first
 * alternative of unions, required properties only, empty arrays. Values, not their meaning:
 * only the types are checked.
 */
const sampleOf = (document: any, schema: any, depth = 0): string => {
  if (schema === undefined || schema === true || depth > 8) return "undefined as never"
  if (typeof schema.$ref === "string") {
    const target = schema.$ref
      .slice(2)
      .split("/")
      .reduce((node: any, key: string) => node?.[key], document)
    return sampleOf(document, target, depth + 1)
  }
  if ("const" in schema) return JSON.stringify(schema.const)
  if (Array.isArray(schema.enum)) return JSON.stringify(schema.enum[0])
  const alternatives = schema.anyOf ?? schema.oneOf
  if (Array.isArray(alternatives)) return sampleOf(document, alternatives[0], depth + 1)
  if (Array.isArray(schema.allOf)) return sampleOf(document, schema.allOf[0], depth + 1)
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type
  switch (type) {
    case "string":
      return JSON.stringify("x")
    case "integer":
    case "number":
      return String(schema.minimum ?? 1)
    case "boolean":
      return "true"
    case "null":
      return "null"
    case "array":
      return "[]"
    default: {
      const required: ReadonlyArray<string> = schema.required ?? []
      const fields = required.map(
        (name) => `${JSON.stringify(name)}: ${sampleOf(document, schema.properties?.[name], depth + 1)}`,
      )
      return `{ ${fields.join(", ")} }`
    }
  }
}

/** One typed openapi-fetch call per operation of `document`: every parameter and the JSON body. */
export const callsOf = (document: any): ReadonlyArray<{ readonly operation: string; readonly code: string }> =>
  Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
    httpMethods
      .filter((method) => item[method] !== undefined)
      .map((method) => {
        const operation = item[method]
        const parameters: ReadonlyArray<any> = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        const params = ["path", "query", "header"]
          .map((location) => {
            const fields = parameters
              .filter((parameter) => parameter.in === location)
              .map((parameter) => `${JSON.stringify(parameter.name)}: ${sampleOf(document, parameter.schema)}`)
            return fields.length === 0 ? undefined : `${location}: { ${fields.join(", ")} }`
          })
          .filter((entry) => entry !== undefined)
        const bodySchema = operation.requestBody?.content?.["application/json"]?.schema
        const init = [
          ...(params.length === 0 ? [] : [`params: { ${params.join(", ")} }`]),
          ...(bodySchema === undefined ? [] : [`body: ${sampleOf(document, bodySchema)}`]),
        ]
        const args = [JSON.stringify(path), ...(init.length === 0 ? [] : [`{ ${init.join(", ")} }`])]
        return {
          operation: `${method.toUpperCase()} ${path}`,
          code: `await client.${method.toUpperCase()}(${args.join(", ")})`,
        }
      }),
  )

export interface Compiled {
  /** tsc's messages, one per diagnostic, `file:line: message`. */
  readonly errors: ReadonlyArray<string>
}

/**
 * A workspace holding the client generated from `document` (openapi-typescript's `paths`) and
 * compiling files against it with openapi-fetch, as an application using the API would.
 */
export const clientWorkspace = async (document: unknown) => {
  // Under the repository's node_modules so that `openapi-fetch` resolves from the files.
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../node_modules/.cache")
  mkdirSync(root, { recursive: true })
  const dir = mkdtempSync(join(root, "aide-openapi-client-"))
  writeFileSync(join(dir, "schema.d.ts"), astToString(await openapiTS(document as any)))
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
  }
  let previous: ts.Program | undefined
  return {
    dir,
    /** Type-checks `source` (the body of an async function with `client` and `paths` in scope). */
    compile: (name: string, source: string): Compiled => {
      const file = join(dir, `${name}.ts`)
      writeFileSync(
        file,
        [
          `import createClient from "openapi-fetch"`,
          `import type { paths } from "./schema"`,
          `const client = createClient<paths>({ baseUrl: "http://127.0.0.1" })`,
          `export async function check(): Promise<void> {`,
          source,
          `}`,
          ``,
        ].join("\n"),
      )
      const program = ts.createProgram({ rootNames: [file], options, ...(previous ? { oldProgram: previous } : {}) })
      previous = program
      const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
        if (diagnostic.file === undefined || diagnostic.start === undefined) return message
        const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
        return `${diagnostic.file.fileName.slice(dir.length + 1)}:${line + 1}: ${message}`
      })
      return { errors }
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  }
}
