/**
 * Driving the HTTP API from a script: sign in (setting the password up on first run), keep
 * the token pair fresh, list sessions. No dependencies beyond `fetch`.
 *
 * Run against a server: `AIDE_URL=http://127.0.0.1:4111 AIDE_PASSWORD=… pnpm --filter @aide/example-api-script start`
 */

export interface TokenPair {
  readonly token: string
  readonly refreshToken: string
  readonly expiresAt: string
  readonly refreshExpiresAt: string
}

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** A tiny client: signs in once, refreshes one request at a time (refresh tokens are single-use). */
export const connect = async (baseUrl: string, password: string) => {
  const status = (await (await fetch(`${baseUrl}/`)).json()) as { auth: { setup: boolean } }
  const first = await post(`${baseUrl}/api/auth/${status.auth.setup ? "login" : "setup"}`, { password })
  if (first.status !== 200 && first.status !== 201) throw new Error(`sign-in failed: ${first.body.error}`)
  let tokens = first.body as TokenPair
  let refreshing: Promise<void> | undefined

  const refresh = () => {
    refreshing ??= post(`${baseUrl}/api/auth/refresh`, { refreshToken: tokens.refreshToken })
      .then((answer) => {
        if (answer.status !== 200) throw new Error(`refresh failed: ${answer.body.error}`)
        tokens = answer.body
      })
      .finally(() => {
        refreshing = undefined
      })
    return refreshing
  }

  const get = async (path: string): Promise<any> => {
    if (Date.parse(tokens.expiresAt) - Date.now() < 60_000) await refresh()
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${tokens.token}` } })
    return response.json()
  }

  return { get, refresh, tokens: () => tokens }
}

export const run = async (baseUrl: string, password: string) => {
  const client = await connect(baseUrl, password)
  await client.refresh()
  const { sessions } = await client.get("/api/auth/sessions")
  return { sessions: sessions.length, current: sessions.find((session: any) => session.current)?.id as string }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.AIDE_URL ?? "http://127.0.0.1:4111"
  const password = process.env.AIDE_PASSWORD
  if (!password) {
    console.error("set AIDE_PASSWORD")
    process.exit(1)
  }
  run(url, password).then((result) => console.log(result))
}
