// The floor under Aide's request figures: the least a server can do to answer `GET /` and
// `GET /api/auth/sessions` as Aide does — node:http, the same bodies and headers, the same JWT,
// session check and SQLite query (bench/request-floor-core.mjs) — with no Effect, no router, no
// middleware, no metrics. Speaks just enough of Aide's API for `bench/ab.mjs` (`node bench/ab.mjs
// floor <snapshot>`): `GET /`, `POST /api/auth/setup`, `GET /api/auth/sessions`.
import http from "node:http"
import { makeFloor } from "./request-floor-core.mjs"

const floor = makeFloor()

const json = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const status = async (req, res) => json(res, 200, await floor.status(req.headers.authorization))

const setup = async (req, res) => {
  for await (const _ of req);
  json(res, 201, await floor.setup(req.headers["user-agent"], req.socket.remoteAddress))
}

const sessions = async (req, res) => {
  const body = await floor.sessions(req.headers.authorization)
  if (body === undefined) return json(res, 401, { error: "unauthorized" })
  json(res, 200, body)
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
