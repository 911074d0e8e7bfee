// The floor under Aide's request figures: the least a server can do to answer `GET /` and
// `GET /api/auth/sessions` as Aide does — node:http, the same bodies and headers, the same JWT
// (HS256 via jose, verified once then remembered, as Aide's AccessTokens do), the same "is this
// session active" check (remembered once true, as Aide's ActiveSessions do) and the same SQLite
// query for the list (better-sqlite3, WAL, a prepared statement run on every request) — with no
// Effect, no router, no middleware, no metrics. Speaks just enough of Aide's API for
// `bench/ab.mjs` (`node bench/ab.mjs floor <snapshot>`): `GET /`, `POST /api/auth/setup`,
// `GET /api/auth/sessions`.
import { randomUUID } from "node:crypto"
import http from "node:http"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"

// The packages come from the server's dependencies (pnpm does not hoist them to the root).
const server = createRequire(path.resolve(import.meta.dirname, "../packages/server/package.json"))
const Jose = await import(pathToFileURL(server.resolve("jose")).href)
const Database = server("better-sqlite3")

const db = new Database(path.join(process.env.AIDE_DATA_DIR ?? ".", "floor.db"))
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

const json = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

/** The request's session id when its Bearer is a valid token of an active session, else undefined. */
const authenticate = async (authorization) => {
  const token = /^bearer (.+)$/i.exec(authorization ?? "")?.[1]
  if (token === undefined) return undefined
  const now = Date.now()
  let claims = verified.get(token)
  if (claims === undefined) {
    try {
      const { payload } = await Jose.jwtVerify(token, key, { algorithms: ["HS256"], issuer, audience })
      claims = { sessionId: payload.sid, expiresAt: payload.exp * 1000 }
      verified.set(token, claims)
    } catch {
      return undefined
    }
  }
  if (claims.expiresAt <= now) return undefined
  if (active.has(claims.sessionId)) return claims.sessionId
  if (isSessionActive.get(claims.sessionId, new Date(now).toISOString()) === undefined) return undefined
  active.add(claims.sessionId)
  return claims.sessionId
}

const status = async (req, res) => {
  const signedIn = (await authenticate(req.headers.authorization)) !== undefined
  json(res, 200, {
    name: "aide",
    version: "0.1.0",
    runtime: "node",
    serverless: false,
    auth: { setup: setupSeen, authenticated: signedIn },
  })
}

const setup = async (req, res) => {
  for await (const _ of req);
  const now = new Date()
  insertOwner.run("not-a-hash", now.toISOString(), now.toISOString())
  setupSeen = true
  const sessionId = randomUUID()
  const expiresAt = new Date(now.getTime() + 7 * 24 * 3600 * 1000)
  insertSession.run(
    sessionId,
    now.toISOString(),
    expiresAt.toISOString(),
    req.headers["user-agent"] ?? "",
    req.socket.remoteAddress ?? "",
  )
  const token = await new Jose.SignJWT({ sid: sessionId })
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt" })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject("owner")
    .setIssuedAt()
    .setExpirationTime("15m")
    .sign(key)
  json(res, 201, { token, refreshToken: randomUUID(), expiresAt: new Date(Date.now() + 900_000).toISOString() })
}

const sessions = async (req, res) => {
  const current = await authenticate(req.headers.authorization)
  if (current === undefined) return json(res, 401, { error: "unauthorized" })
  const rows = listActiveSessions.all(new Date().toISOString())
  json(res, 200, { sessions: rows.map((row) => ({ ...row, current: row.id === current })) })
}

http
  .createServer((req, res) => {
    const route = `${req.method} ${req.url}`
    const answer =
      route === "GET /"
        ? status(req, res)
        : route === "GET /api/auth/sessions"
          ? sessions(req, res)
          : route === "POST /api/auth/setup"
            ? setup(req, res)
            : Promise.resolve(json(res, 404, { error: "not_found" }))
    answer.catch((error) => {
      console.error(error)
      json(res, 500, { error: "internal" })
    })
  })
  .listen(Number(process.env.PORT ?? 4111), process.env.HOST ?? "127.0.0.1")
