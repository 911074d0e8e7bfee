// What the request floors answer, without the HTTP layer: the same bodies, JWT (HS256 via jose,
// verified once then remembered, as Aide's AccessTokens do), "is this session active" check
// (remembered once true, as Aide's ActiveSessions do) and SQLite query for the session list
// (better-sqlite3, WAL, a prepared statement run on every request) as Aide. Shared by
// bench/request-floor-server.mjs (node:http) and bench/request-effect-floor-server.mjs (the
// same answers served by @effect/platform), so the two differ only in how a request is served.
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

// The packages come from the server's dependencies (pnpm does not hoist them to the root).
export const serverRequire = createRequire(path.resolve(import.meta.dirname, "../packages/server/package.json"))
/** Imports a package as the server resolves it (the same versions Aide runs). */
export const importFromServer = (name) => import(pathToFileURL(serverRequire.resolve(name)).href)

const Jose = await importFromServer("jose")
const Database = serverRequire("better-sqlite3")

export const makeFloor = (dataDir = process.env.AIDE_DATA_DIR ?? ".") => {
  const db = new Database(path.join(dataDir, "floor.db"))
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.exec(`CREATE TABLE IF NOT EXISTS auth_owner (id INTEGER PRIMARY KEY CHECK (id = 1), password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`)
  db.exec(`CREATE TABLE IF NOT EXISTS auth_sessions (id TEXT PRIMARY KEY, created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL, user_agent TEXT NOT NULL, ip TEXT NOT NULL, revoked_at TEXT)`)
  const insertOwner = db.prepare("INSERT INTO auth_owner VALUES (1, ?, ?, ?)")
  const hasOwner = db.prepare("SELECT 1 FROM auth_owner")
  const insertSession = db.prepare("INSERT INTO auth_sessions VALUES (?, ?, ?, ?, ?, NULL)")
  const isSessionActive = db.prepare(
    "SELECT 1 AS active FROM auth_sessions WHERE id = ? AND revoked_at IS NULL AND expires_at > ?",
  )
  // Aide's query (SqlAuthStore.listActiveSessions), column for column.
  const listActiveSessions = db.prepare(`SELECT id, created_at AS createdAt, expires_at AS expiresAt,
    user_agent AS userAgent, ip FROM auth_sessions WHERE revoked_at IS NULL AND expires_at > ?
    ORDER BY created_at DESC, id`)

  const key = new TextEncoder().encode(randomUUID() + randomUUID())
  const issuer = "aide"
  const audience = "aide"
  const verified = new Map()
  const active = new Set()
  let setupSeen = hasOwner.get() !== undefined

  const check = (claims) => {
    if (claims.expiresAt <= Date.now()) return undefined
    if (active.has(claims.sessionId)) return claims.sessionId
    if (isSessionActive.get(claims.sessionId, new Date().toISOString()) === undefined) return undefined
    active.add(claims.sessionId)
    return claims.sessionId
  }
  const verify = async (token) => {
    try {
      const { payload } = await Jose.jwtVerify(token, key, { algorithms: ["HS256"], issuer, audience })
      const claims = { sessionId: payload.sid, expiresAt: payload.exp * 1000 }
      verified.set(token, claims)
      return check(claims)
    } catch {
      return undefined
    }
  }
  /**
   * The request's session id when its Bearer is a valid token of an active session, else
   * undefined; a Promise of that only the first time a token is seen (jose verifies
   * asynchronously), as Aide's remembered tokens are answered without a suspension.
   */
  const authenticate = (authorization) => {
    const token = /^bearer (.+)$/i.exec(authorization ?? "")?.[1]
    if (token === undefined) return undefined
    const claims = verified.get(token)
    return claims === undefined ? verify(token) : check(claims)
  }
  const then = (value, f) => (value instanceof Promise ? value.then(f) : f(value))

  /** `GET /`'s body (or a Promise of it: see authenticate). */
  const status = (authorization) =>
    then(authenticate(authorization), (current) => ({
      name: "aide",
      version: "0.1.0",
      runtime: "node",
      serverless: false,
      auth: { setup: setupSeen, authenticated: current !== undefined },
    }))

  /** `POST /api/auth/setup`'s body (201), the password unread. */
  const setup = async (userAgent, ip) => {
    const now = new Date()
    insertOwner.run("not-a-hash", now.toISOString(), now.toISOString())
    setupSeen = true
    const sessionId = randomUUID()
    const expiresAt = new Date(now.getTime() + 7 * 24 * 3600 * 1000)
    insertSession.run(sessionId, now.toISOString(), expiresAt.toISOString(), userAgent ?? "", ip ?? "")
    const token = await new Jose.SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject("owner")
      .setIssuedAt()
      .setExpirationTime("15m")
      .sign(key)
    return { token, refreshToken: randomUUID(), expiresAt: new Date(Date.now() + 900_000).toISOString() }
  }

  /** `GET /api/auth/sessions`'s body, undefined for 401 (or a Promise of either: see authenticate). */
  const sessions = (authorization) =>
    then(authenticate(authorization), (current) => {
      if (current === undefined) return undefined
      const rows = listActiveSessions.all(new Date().toISOString())
      return { sessions: rows.map((row) => ({ ...row, current: row.id === current })) }
    })

  return { status, setup, sessions }
}
