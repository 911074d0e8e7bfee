/** At most this many parameters in one OAuth request (RFC 6749 names about a dozen). */
const maxParams = 32

/**
 * The parameters of an OAuth request (query or form body) as one value each, or a problem:
 * RFC 6749 §3.1 forbids a parameter sent twice, and an empty value counts as absent.
 */
export const singleParams = (search: URLSearchParams): Readonly<Record<string, string>> | string => {
  const params: Record<string, string> = {}
  let count = 0
  for (const [key, value] of search) {
    if (++count > maxParams) return "too many parameters"
    if (Object.hasOwn(params, key)) return `parameter ${JSON.stringify(key.slice(0, 64))} is repeated`
    if (value !== "") params[key] = value
  }
  return params
}
