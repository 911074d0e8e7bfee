import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { credentialsFile, defaultUrl } from "./Paths.js"

/** A token pair as the server issues it (POST /api/auth/setup, login, refresh). */
export interface Tokens {
  readonly token: string
  readonly refreshToken: string
  readonly expiresAt?: string
  readonly refreshExpiresAt?: string
}

/** The CLI's file: tokens per server URL, and the server `aide login` chose last. */
interface CredentialsDocument {
  readonly current?: string
  readonly servers: Record<string, Tokens>
}

const read = (): CredentialsDocument => {
  const file = credentialsFile()
  if (!existsSync(file)) return { servers: {} }
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as CredentialsDocument
    return { ...parsed, servers: parsed.servers ?? {} }
  } catch {
    return { servers: {} }
  }
}

/** Written 0600 (in a 0700 folder), aside then renamed: the file holds a refresh token. */
const write = (document: CredentialsDocument) => {
  const file = credentialsFile()
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, file)
}

const normalize = (url: string) => url.replace(/\/+$/, "")

/** `--url`, else `AIDE_URL`, else the server `aide login` stored last, else http://127.0.0.1:4111. */
export const serverUrl = (option: string | undefined) =>
  normalize(option ?? process.env.AIDE_URL ?? read().current ?? defaultUrl)

export const load = (url: string): Tokens | undefined => read().servers[normalize(url)]

export const save = (url: string, tokens: Tokens) => {
  const document = read()
  write({ current: normalize(url), servers: { ...document.servers, [normalize(url)]: tokens } })
}

export const clear = (url: string) => {
  const document = read()
  const { [normalize(url)]: _removed, ...servers } = document.servers
  write({ ...(document.current === undefined ? {} : { current: document.current }), servers })
}
