import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Posted {
  readonly conversationId: string
  readonly text: string
  readonly buttons?: ReadonlyArray<{ readonly label: string; readonly data: string }>
}

/** A fake Echo Chat server on loopback: updates served by long polling, posted messages recorded. */
export const startFakeEchoChat = async () => {
  const updates: Array<Record<string, unknown> & { id: number }> = []
  const posted: Array<Posted> = []
  const waiting = new Set<() => void>()
  const open = new Set<Http.ServerResponse>()
  let nextId = 1
  const read = async (request: Http.IncomingMessage) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString("utf8")
  }
  const server = Http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://fake")
    if (request.method === "GET" && url.pathname === "/updates") {
      const after = Number(url.searchParams.get("after") ?? 0)
      const pending = () => updates.filter((update) => update.id > after)
      const answer = () => {
        waiting.delete(answer)
        open.delete(response)
        clearTimeout(timer)
        if (!response.destroyed) response.end(JSON.stringify({ updates: pending() }))
      }
      const timer = setTimeout(answer, Number(url.searchParams.get("wait") ?? 0) * 1000)
      open.add(response)
      response.writeHead(200, { "content-type": "application/json" })
      if (pending().length > 0) return answer()
      waiting.add(answer)
      return
    }
    if (request.method === "POST" && url.pathname === "/messages") {
      const message = JSON.parse(await read(request)) as Posted
      if (message.text.length > 500) return response.writeHead(400).end("message too long")
      posted.push(message)
      return response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}')
    }
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const push = (update: Record<string, unknown>) => {
    updates.push({ ...update, id: nextId++ })
    for (const wake of [...waiting]) wake()
  }
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posted,
    push,
    /** Cuts every open long poll, as a network drop does. */
    drop: () => {
      for (const response of open) response.socket?.destroy()
      return open.size
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
