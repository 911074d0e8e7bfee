import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { embeddingsBody } from "./embeddings.js"
import { type ChatCompletionRequest, defaultTurn, type RecordedRequest, type Turn } from "./Turn.js"
import { type Answer, chunks, completion, errorBody, makeAnswer } from "./wire.js"

/** Options of {@link FakeModelServer.start}. */
export interface FakeModelServerOptions {
  /** Port on 127.0.0.1; defaults to 0 (a free port). */
  readonly port?: number
  /** Ids listed by `GET /v1/models`; defaults to `["fake-model", "fake-model-mini"]`. */
  readonly models?: ReadonlyArray<string>
}

/** The JSON body of a `POST /v1/embeddings` request. */
export interface EmbeddingsRequest {
  readonly model: string
  readonly input: string | ReadonlyArray<string>
  readonly [key: string]: unknown
}

const sleep = (ms: number | undefined) =>
  ms !== undefined && ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve()

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const parts: Array<Buffer> = []
  for await (const part of req) parts.push(part as Buffer)
  return Buffer.concat(parts).toString("utf8")
}

/**
 * A scripted, OpenAI-compatible model server on loopback, for tests that should exercise the
 * real provider path over HTTP. Each chat request consumes one scripted {@link Turn}.
 *
 * @example
 * const server = await FakeModelServer.start()
 * const model = createOpenAICompatible({ name: "fake", baseURL: server.url })("fake-model")
 * server.script({ text: ["Hi", " there"] })
 * const result = streamText({ model, prompt: "Hello" })
 * await server.close()
 */
export class FakeModelServer {
  /** Chat requests received, in arrival order (`GET /v1/models` and unknown routes are not kept). */
  readonly requests: Array<RecordedRequest> = []
  /** Embedding requests (`POST /v1/embeddings`), in arrival order; kept apart from chat `requests`. */
  readonly embeddingRequests: Array<EmbeddingsRequest> = []
  #concepts = new Map<string, string>()
  #queue: Array<Turn> = []
  #completions = 0
  #toolCalls = 0

  private constructor(
    private readonly server: Server,
    /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:43121/v1`: pass it as the provider's `baseURL`. */
    readonly url: string,
    private readonly models: ReadonlyArray<string>,
  ) {}

  /** Starts a server on 127.0.0.1 (a free port unless `port` is given). */
  static async start(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
    let self: FakeModelServer | undefined
    const server = createServer((req, res) => {
      self!.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, errorBody(String(error), "server_error"))
        else res.destroy()
      })
    })
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        server.off("error", reject)
        resolve()
      })
    })
    const { port } = server.address() as AddressInfo
    self = new FakeModelServer(
      server,
      `http://127.0.0.1:${port}/v1`,
      options.models ?? ["fake-model", "fake-model-mini"],
    )
    return self
  }

  /**
   * Appends turns to the queue. A chat request consumes the first turn whose `match` accepts it,
   * else the first turn without `match`, else it gets {@link defaultTurn}.
   */
  script(...turns: ReadonlyArray<Turn>): this {
    this.#queue.push(...turns)
    return this
  }

  /**
   * Declares groups of words that mean the same to `POST /v1/embeddings` (each group embeds as
   * its first word), so a paraphrase sharing no word with the original is still near it.
   *
   * @example
   * server.concepts(["car", "automobile", "vehicle"])
   */
  concepts(...groups: ReadonlyArray<ReadonlyArray<string>>): this {
    for (const group of groups)
      for (const word of group) this.#concepts.set(word.toLowerCase(), group[0]!.toLowerCase())
    return this
  }

  /** How many scripted turns are still unconsumed. */
  get remaining(): number {
    return this.#queue.length
  }

  /** Forgets scripted turns and recorded requests. */
  reset(): void {
    this.#queue = []
    this.requests.length = 0
    this.embeddingRequests.length = 0
  }

  /** Stops listening and drops every open connection (streams in flight are cut). */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()))
      this.server.closeAllConnections()
    })
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? "/"
    const route = `${req.method} ${path.split("?")[0]}`
    if (route === "GET /v1/models") {
      const data = this.models.map((id) => ({ id, object: "model", created: 0, owned_by: "aide-testing" }))
      return sendJson(res, 200, { object: "list", data })
    }
    if (route === "POST /v1/embeddings") return this.embed(req, res)
    if (route !== "POST /v1/chat/completions") {
      return sendJson(res, 404, errorBody(`Unknown route: ${route}`, "invalid_request_error", "not_found"))
    }
    let body: ChatCompletionRequest
    try {
      body = JSON.parse(await readBody(req))
    } catch {
      return sendJson(res, 400, errorBody("The request body is not valid JSON.", "invalid_request_error"))
    }
    const request: RecordedRequest = { method: req.method ?? "POST", path, headers: req.headers, body }
    this.requests.push(request)
    const turn = this.take(request)

    await sleep(turn.latencyMs)
    if (res.destroyed) return
    if (turn.error) {
      const { status, message, type, code, headers } = turn.error
      const errorType = type ?? (status >= 500 ? "server_error" : "invalid_request_error")
      return sendJson(res, status, errorBody(message, errorType, code ?? null), { ...headers })
    }
    const answer = makeAnswer(turn, body, {
      completion: () => `chatcmpl-fake-${++this.#completions}`,
      toolCall: () => `call_${++this.#toolCalls}`,
    })
    if (turn.endless === true) return this.streamForever(res, answer, turn, body.stream === true)
    if (body.stream !== true) {
      if (turn.failAfterChunks !== undefined) return void res.destroy()
      return sendJson(res, 200, completion(answer))
    }
    return this.stream(res, answer, turn, body.stream_options?.include_usage === true)
  }

  /** Deterministic embeddings (`fakeEmbedding`): a hashed bag of words, 64 dimensions. */
  private async embed(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: EmbeddingsRequest
    try {
      body = JSON.parse(await readBody(req))
    } catch {
      return sendJson(res, 400, errorBody("The request body is not valid JSON.", "invalid_request_error"))
    }
    this.embeddingRequests.push(body)
    const inputs = typeof body.input === "string" ? [body.input] : body.input
    if (!Array.isArray(inputs) || !inputs.every((input) => typeof input === "string")) {
      return sendJson(res, 400, errorBody("input must be a string or an array of strings.", "invalid_request_error"))
    }
    return sendJson(res, 200, embeddingsBody(body.model, inputs, this.#concepts))
  }

  private take(request: RecordedRequest): Turn {
    // A turn that asks for this request (by `match`) wins over the next turn that takes any request.
    const matched = this.#queue.findIndex((turn) => turn.match?.(request) === true)
    const index = matched !== -1 ? matched : this.#queue.findIndex((turn) => turn.match === undefined)
    if (index === -1) return defaultTurn
    return this.#queue.splice(index, 1)[0]!
  }

  private async stream(res: ServerResponse, answer: Answer, turn: Turn, includeUsage: boolean): Promise<void> {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
    res.flushHeaders()
    const events = [...chunks(answer, includeUsage).map((chunk) => JSON.stringify(chunk)), "[DONE]"]
    const cutAt = turn.failAfterChunks ?? Number.POSITIVE_INFINITY
    for (const [sent, event] of events.entries()) {
      if (sent >= cutAt) break
      // A stall: the connection stays open and silent; the client's abort (or close()) ends it.
      if (sent === turn.stallAfterChunks) return
      if (sent > 0) await sleep(turn.chunkDelayMs)
      if (res.destroyed) return
      await new Promise<void>((resolve) => res.write(`data: ${event}\n\n`, () => resolve()))
    }
    // A cut: once what was written is flushed, close the socket without ending the chunked body.
    if (cutAt < events.length) return void res.socket?.destroySoon()
    res.end()
  }

  /**
   * The turn's text deltas, again and again, until the client disconnects: as SSE deltas, or
   * for a non-streaming request as one JSON body whose `content` never ends.
   */
  private async streamForever(res: ServerResponse, answer: Answer, turn: Turn, streaming: boolean): Promise<void> {
    const [first] = chunks(answer, false)
    const deltas = answer.textChunks.length === 0 ? ["lorem "] : answer.textChunks
    if (!streaming) {
      res.writeHead(200, { "content-type": "application/json" })
      res.write(
        `{"id":"${answer.id}","object":"chat.completion","created":0,"model":"${answer.model}","choices":[{"index":0,"message":{"role":"assistant","content":"`,
      )
    } else {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    }
    const frame = (content: string) =>
      !streaming
        ? JSON.stringify(content).slice(1, -1)
        : `data: ${JSON.stringify({ ...(first as object), choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`
    let closed = false
    res.on("close", () => {
      closed = true
    })
    for (let n = 0; !closed; n++) {
      if (n > 0 && turn.chunkDelayMs !== undefined) await sleep(turn.chunkDelayMs)
      const content = deltas[n % deltas.length]!
      // Respect back-pressure: a client that reads slowly slows the model down, as a socket would.
      if (!res.write(frame(content)))
        await new Promise<void>((resolve) => res.once("drain", resolve).once("close", resolve))
      else if (n % 64 === 0) await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
}
