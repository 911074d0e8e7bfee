import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request, startServer, type TestServer } from "./support/server.js"

/** SPEC "Endpoints" › "Authentication": each auth path with its methods and the statuses it documents. */
const authOperations: Record<
  string,
  Record<string, { readonly statuses: ReadonlyArray<string>; readonly bearer: boolean }>
> = {
  "/api/auth/setup": { post: { statuses: ["201", "400", "409", "429"], bearer: false } },
  "/api/auth/login": { post: { statuses: ["200", "400", "401", "403", "429"], bearer: false } },
  "/api/auth/refresh": { post: { statuses: ["200", "400", "401", "429"], bearer: false } },
  "/api/auth/logout": { post: { statuses: ["200", "401"], bearer: true } },
  "/api/auth/change-password": { post: { statuses: ["200", "400", "401", "429"], bearer: true } },
  "/api/auth/sessions": {
    get: { statuses: ["200", "401"], bearer: true },
    delete: { statuses: ["200", "401"], bearer: true },
  },
  "/api/auth/sessions/{id}": { delete: { statuses: ["200", "401", "404"], bearer: true } },
}

const httpMethods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])

describe("GET /api/openapi.json", () => {
  let server: TestServer
  let document: any
  beforeAll(async () => {
    server = await startServer()
    const response = await request(`${server.url}/api/openapi.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    document = response.body
  })
  afterAll(() => server.close())

  /** Follows a local `$ref` (`#/components/schemas/X`). */
  const resolve = (schema: any): any =>
    typeof schema?.$ref === "string"
      ? resolve(
          schema.$ref
            .slice(2)
            .split("/")
            .reduce((node: any, key: string) => node?.[key], document),
        )
      : schema

  const operations = () =>
    Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => httpMethods.has(method))
        .map(([method, operation]) => ({ path, method, operation })),
    )

  it("is an OpenAPI 3.1 document titled Aide API", () => {
    expect(document.openapi).toMatch(/^3\.1\./)
    expect(document.info.title).toBe("Aide API")
    expect(document.info.version).toEqual(expect.any(String))
  })

  it("lists GET / without security", () => {
    expect(Object.keys(document.paths["/"])).toContain("get")
    expect(document.paths["/"].get.security ?? []).toEqual([])
  })

  it.each(Object.keys(authOperations))("lists %s with exactly the methods of the SPEC", (path) => {
    const methods = Object.keys(document.paths[path] ?? {}).filter((key) => httpMethods.has(key))
    expect(methods.sort()).toEqual(Object.keys(authOperations[path]!).sort())
  })

  it.each(
    Object.entries(authOperations).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, expected]) => ({
        path,
        method,
        operation: `${method.toUpperCase()} ${path}`,
        list: expected.statuses.join(", "),
        ...expected,
      })),
    ),
  )("documents $operation with the responses $list", ({ path, method, statuses }) => {
    expect(Object.keys(document.paths[path][method].responses)).toEqual(expect.arrayContaining([...statuses]))
  })

  it("declares a Bearer scheme and requires it on every operation but GET /, setup, login, refresh and the MCP OAuth callback", () => {
    const schemes = Object.entries<any>(document.components.securitySchemes)
    expect(schemes).toContainEqual([expect.any(String), expect.objectContaining({ type: "http", scheme: "bearer" })])
    const bearerNames = schemes.filter(([, scheme]) => scheme.scheme === "bearer").map(([name]) => name)
    const publicOperations = [
      "get /",
      "post /api/auth/setup",
      "post /api/auth/login",
      "post /api/auth/refresh",
      "get /api/mcp-servers/oauth/callback",
    ]
    for (const { path, method, operation } of operations()) {
      const required = (operation.security ?? document.security ?? []).flatMap((entry: object) => Object.keys(entry))
      const isPublic = publicOperations.includes(`${method} ${path}`)
      expect({
        operation: `${method} ${path}`,
        bearer: required.some((name: string) => bearerNames.includes(name)),
      }).toEqual({
        operation: `${method} ${path}`,
        bearer: !isPublic,
      })
    }
  })

  it("names the session id path parameter of DELETE /api/auth/sessions/{id}", () => {
    expect(document.paths["/api/auth/sessions/{id}"].delete.parameters).toContainEqual(
      expect.objectContaining({ name: "id", in: "path", required: true }),
    )
  })

  it("documents request bodies of setup, login, refresh and change-password with their required fields", () => {
    const required = (path: string) =>
      resolve(document.paths[path].post.requestBody.content["application/json"].schema).required
    expect(required("/api/auth/setup")).toEqual(["password"])
    expect(required("/api/auth/login")).toEqual(["password"])
    expect(required("/api/auth/refresh")).toEqual(["refreshToken"])
    expect([...required("/api/auth/change-password")].sort()).toEqual(["currentPassword", "newPassword"])
  })

  it("documents every error response as the body clients get: { error: string }", () => {
    const undocumented: Array<string> = []
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue
        const schema = resolve(response.content?.["application/json"]?.schema)
        const isErrorBody =
          schema?.type === "object" &&
          resolve(schema.properties?.error)?.type === "string" &&
          (schema.required ?? []).includes("error") &&
          Object.keys(schema.properties).length === 1
        if (!isErrorBody) undocumented.push(`${method} ${path} ${status}: ${JSON.stringify(schema).slice(0, 120)}`)
      }
    }
    expect(undocumented).toEqual([])
  })

  it("types the paging parameters of GET /api/threads as numbers (perPage also false), not strings", () => {
    const parameter = (name: string) =>
      document.paths["/api/threads"].get.parameters.find((entry: any) => entry.name === name && entry.in === "query")
    expect(parameter("page").schema).toMatchObject({ type: "integer", minimum: 0 })
    expect(parameter("perPage").schema.anyOf).toEqual([
      expect.objectContaining({ type: "integer", minimum: 1 }),
      { type: "boolean", enum: [false] },
    ])
  })

  /** The JSON request body of an operation, `$ref`s followed. */
  const bodyOf = (method: string, path: string) =>
    resolve(document.paths[path][method].requestBody?.content?.["application/json"]?.schema)

  /** A property's schemas: itself, or the alternatives of a nullable one, `$ref`s (also in `allOf`) followed. */
  const alternativesOf = (property: any): Array<any> =>
    (property.anyOf ?? property.allOf ?? [property])
      .map(resolve)
      .flatMap((schema: any) => schema.anyOf?.map(resolve) ?? [schema])

  const isNullable = (property: any) => alternativesOf(property).some((schema) => schema.type === "null")

  describe("request bodies list every field, with its type and description", () => {
    const taskFields = ["name", "prompt", "cron", "runAt", "enabled", "timezone", "maxRuns", "destination"]
    const configSections = [
      "identity",
      "timezone",
      "personality",
      "models",
      "plugins",
      "memory",
      "schedule",
      "onboardingComplete",
      "mcpServers",
    ]
    const mcpFields = ["command", "args", "url", "enabled", "name", "env", "requireApproval", "headers", "oauth", "cwd"]

    it.each([
      { operation: "post /api/schedule", fields: taskFields, required: ["name", "prompt"] },
      { operation: "patch /api/schedule/{id}", fields: taskFields, required: [] },
      {
        operation: "patch /api/schedule/heartbeat",
        fields: ["enabled", "cron", "tasks", "destination", "activeHours"],
        required: [],
      },
      {
        operation: "post /api/chat/approve",
        fields: ["runId", "threadId", "toolCallId", "messageId", "approved"],
        required: ["runId", "threadId", "approved"],
      },
      { operation: "patch /api/config", fields: configSections, required: [] },
      // The id is optional: without one the server makes a UUID (issue 20, finding 17).
      { operation: "post /api/mcp-servers", fields: ["id", ...mcpFields], required: [] },
    ])("$operation: $fields", ({ operation, fields, required }) => {
      const [method, path] = operation.split(" ") as [string, string]
      const body = bodyOf(method, path)
      expect(body.type).toBe("object")
      expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(fields))
      expect([...(body.required ?? [])].sort()).toEqual([...required].sort())
      for (const field of fields) {
        const property = body.properties[field]
        expect({ field, description: typeof property.description }).toEqual({ field, description: "string" })
        expect({ field, typed: alternativesOf(property).every((schema) => schema.type !== undefined) }).toEqual({
          field,
          typed: true,
        })
      }
    })

    it("types task fields: strings, a boolean, an integer; null clears the optional ones", () => {
      const body = bodyOf("post", "/api/schedule")
      const typesOf = (field: string) =>
        alternativesOf(body.properties[field])
          .map((schema) => schema.type)
          .filter((type) => type !== "null")
      expect(typesOf("name")).toEqual(["string"])
      expect(typesOf("cron")).toEqual(["string"])
      expect(typesOf("enabled")).toEqual(["boolean"])
      expect(typesOf("maxRuns")).toEqual(["integer"])
      expect(isNullable(body.properties.name)).toBe(false)
      for (const field of ["cron", "runAt", "enabled", "timezone", "maxRuns", "destination"]) {
        expect({ field, nullable: isNullable(body.properties[field]) }).toEqual({ field, nullable: true })
      }
    })

    it("types the config patch as a deep partial of the config: every key optional, null deletes it", () => {
      const body = bodyOf("patch", "/api/config")
      for (const section of configSections) {
        expect({ section, nullable: isNullable(body.properties[section]) }).toEqual({ section, nullable: true })
      }
      const models = alternativesOf(body.properties.models).find((schema) => schema.type === "object")
      const operator = alternativesOf(models.properties.operator).find((schema) => schema.type === "object")
      expect(Object.keys(operator.properties)).toEqual(["provider", "model", "temperature", "maxTokens"])
      expect(operator.required ?? []).toEqual([])
      const servers = alternativesOf(body.properties.mcpServers).find((schema) => schema.type === "object")
      const server = alternativesOf(servers.additionalProperties).find((schema) => schema.type === "object")
      expect(Object.keys(server.properties)).toEqual(mcpFields)
      const headers = alternativesOf(server.properties.headers).find((schema) => schema.type === "object")
      expect(alternativesOf(headers.additionalProperties).map((schema) => schema.type)).toEqual(["string", "null"])
    })

    it("has no operation whose JSON body is an object without properties", () => {
      const open = operations()
        .filter(({ operation }) => operation.requestBody !== undefined)
        .filter(({ method, path }) => Object.keys(bodyOf(method, path)?.properties ?? {}).length === 0)
        .map(({ method, path }) => `${method} ${path}`)
      expect(open).toEqual([])
    })
  })

  it("documents X-Thread-Id and X-Run-Id on chat streams and Last-Event-ID on reconnects", () => {
    const headersOf = (path: string, method: string) =>
      Object.keys(document.paths[path][method].responses["200"].headers)
    expect(headersOf("/api/chat", "post")).toEqual(expect.arrayContaining(["X-Thread-Id", "X-Run-Id"]))
    expect(headersOf("/api/chat/approve", "post")).toEqual(expect.arrayContaining(["X-Thread-Id", "X-Run-Id"]))
    expect(headersOf("/api/chat/{threadId}/stream", "get")).toContain("X-Thread-Id")
    expect(document.paths["/api/chat/{threadId}/stream"].get.parameters).toContainEqual(
      expect.objectContaining({ name: "last-event-id", in: "header", required: false }),
    )
  })
})

describe("GET /api/docs", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it("answers an HTML page for the API reference", async () => {
    const response = await fetch(`${server.url}/api/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    const html = await response.text()
    expect(html).toMatch(/^<!doctype html>/i)
    expect(html).toContain("<title>Aide API</title>")
  })

  it("needs no token", async () => {
    expect((await fetch(`${server.url}/api/docs`, { headers: { authorization: "Bearer nonsense" } })).status).toBe(200)
  })
})
