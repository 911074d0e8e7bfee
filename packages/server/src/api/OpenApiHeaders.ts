/**
 * Response headers for the OpenAPI document. HttpApi documents bodies from their schemas but
 * has no notion of response headers, and the headers that matter here are set outside any
 * schema (raw SSE responses, the rate-limit middleware), so they are added as transforms.
 * Generated clients read them from the document (`X-Thread-Id` of a new chat, `X-Run-Id` to
 * approve its tool calls).
 */

export interface HeaderDoc {
  readonly description: string
  /** Present on every response it is documented on. */
  readonly required?: boolean
  /** JSON schema of the value; a string by default. */
  readonly schema?: Record<string, unknown>
}

type Operation = Record<string, any>

/** `headers` of an OpenAPI response object, canonical header names as keys. */
const headerObjects = (headers: Readonly<Record<string, HeaderDoc>>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, header]) => [
      name,
      {
        description: header.description,
        required: header.required ?? false,
        schema: header.schema ?? { type: "string" },
      },
    ]),
  )

const addHeaders = (
  operation: Operation,
  select: (status: number) => boolean,
  headers: Readonly<Record<string, HeaderDoc>>,
) => {
  for (const [status, response] of Object.entries<Record<string, any>>(operation.responses ?? {})) {
    if (!select(Number(status))) continue
    response.headers = { ...response.headers, ...headerObjects(headers) }
  }
  return operation
}

/** Which responses of an operation a header is on: `"2xx"`, `"all"` or one status. */
export type Statuses = "2xx" | "all" | number

const selects = (statuses: Statuses) => (status: number) =>
  statuses === "all" ? true : statuses === "2xx" ? status >= 200 && status < 300 : status === statuses

/**
 * An endpoint's `OpenApi.Transform` documenting response headers, e.g.
 * `responseHeaders(["all", { "X-Thread-Id": … }], [200, { "X-Run-Id": … }])`.
 */
export const responseHeaders =
  (...rules: ReadonlyArray<readonly [Statuses, Readonly<Record<string, HeaderDoc>>]>) =>
  (operation: Operation): Operation =>
    rules.reduce((documented, [statuses, headers]) => addHeaders(documented, selects(statuses), headers), operation)

const integerHeader = { type: "integer", minimum: 0 }

/** SPEC "Limits": rate-limited routes (those that can answer 429) carry these on every response. */
const rateLimitHeaders: Record<string, HeaderDoc> = {
  "X-RateLimit-Limit": { description: "Requests allowed per window for this client and route", schema: integerHeader },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: integerHeader },
  "X-RateLimit-Reset": { description: "Seconds until the window resets", schema: integerHeader },
}

/** The API's `OpenApi.Transform` part: rate-limit headers on operations that can answer 429. */
export const documentRateLimitHeaders = (spec: Record<string, any>): Record<string, any> => {
  for (const item of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<Operation>(item)) {
      if (operation?.responses?.["429"] === undefined) continue
      addHeaders(operation, () => true, rateLimitHeaders)
      addHeaders(operation, (status) => status === 429, {
        "Retry-After": { description: "Seconds to wait before retrying", required: true, schema: integerHeader },
      })
    }
  }
  return spec
}
