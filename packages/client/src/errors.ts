/**
 * Every failure of the client: an HTTP error answer (`status` and the SPEC `{ error }` body's
 * `code`), or a network failure (`status` 0, `code` "network_error").
 *
 * @example
 * try { await client.auth.login("wrong") } catch (e) { if (AideError.is(e) && e.code === "invalid_credentials") … }
 */
export class AideError extends Error {
  override readonly name = "AideError"
  constructor(
    /** HTTP status; 0 when no answer arrived. */
    readonly status: number,
    /** The `error` field of the body (`invalid_credentials`, `Thread not found`…), else a status name. */
    readonly code: string,
    message: string = code,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options)
  }

  static is(value: unknown): value is AideError {
    return value instanceof AideError
  }

  /** Reads an error answer's `{ error }` body (or the status text when it has none). */
  static async fromResponse(response: Response): Promise<AideError> {
    const text = await response.text().catch(() => "")
    let code = response.statusText || `http_${response.status}`
    try {
      const body = JSON.parse(text) as { error?: unknown }
      if (typeof body?.error === "string") code = body.error
    } catch {
      if (text.trim() !== "" && text.length < 500) code = text.trim()
    }
    return new AideError(response.status, code, `${response.status} ${code}`)
  }
}
