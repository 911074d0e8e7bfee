import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type FakeTelegram, startFakeTelegram } from "../src/fixtures/index.js"

let fake: FakeTelegram
beforeEach(async () => {
  fake = await startFakeTelegram({ token: "1:abc" })
})
afterEach(async () => {
  await fake.close()
})

const call = async (
  method: string,
  params: Record<string, unknown> = {},
  token = fake.token,
  signal: AbortSignal | null = null,
) => {
  const response = await fetch(`${fake.apiRoot}/bot${token}/${method}`, {
    method: "POST",
    signal,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** Waits (on the event loop, a few ms at a time) until `check` holds: the fake answers in the background. */
const waitUntil = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(check()).toBe(true)
}

describe("the fake Telegram Bot API server", () => {
  it("answers 401 to another token, as Telegram does", async () => {
    expect(await call("getMe", {}, "2:nope")).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    })
  })

  it("serves queued updates by offset and wakes a waiting long poll", async () => {
    const first = fake.pushUpdate({ message: { text: "a" } })
    expect((await call("getUpdates", { offset: 0 })).body.result).toHaveLength(1)
    const waiting = call("getUpdates", { offset: first + 1, timeout: 5 })
    const second = fake.pushUpdate({ message: { text: "b" } })
    expect((await waiting).body.result).toEqual([{ message: { text: "b" }, update_id: second }])
    // Confirming an offset forgets the updates below it.
    expect((await call("getUpdates", { offset: second + 1 })).body.result).toEqual([])
  })

  it("answers an open long poll 409 Conflict when a second one arrives, as Telegram does", async () => {
    const first = call("getUpdates", { timeout: 5 })
    await waitUntil(() => fake.activePolls === 1)
    const second = call("getUpdates", { timeout: 5 })
    expect(await first).toEqual({
      status: 409,
      body: { ok: false, error_code: 409, description: "Conflict: terminated by other getUpdates request" },
    })
    expect(fake.conflicts).toBe(1)
    expect(fake.peakPolls).toBe(2)
    const update = fake.pushUpdate({ message: { text: "c" } })
    expect((await second).body.result).toEqual([{ message: { text: "c" }, update_id: update }])
    expect(fake.activePolls).toBe(0)
  })

  it("forgets a long poll whose client went away: the next poller is no conflict", async () => {
    const gone = new AbortController()
    const abandoned = call("getUpdates", { timeout: 30 }, fake.token, gone.signal).catch(() => "aborted")
    await waitUntil(() => fake.activePolls === 1)
    gone.abort()
    expect(await abandoned).toBe("aborted")
    await waitUntil(() => fake.activePolls === 0)
    expect((await call("getUpdates", { timeout: 0 })).status).toBe(200)
    expect(fake.conflicts).toBe(0)
    expect(fake.peakPolls).toBe(1)
  })

  it("records setWebhook and deleteWebhook", async () => {
    await call("setWebhook", { url: "https://aide.example/wh/telegram/telegram", secret_token: "s" })
    expect(fake.webhook).toEqual({ url: "https://aide.example/wh/telegram/telegram", secret_token: "s" })
    await call("deleteWebhook")
    expect(fake.webhook).toBeNull()
  })

  it("serves files through getFile and the file path", async () => {
    const fileId = fake.addFile(new Uint8Array([1, 2, 3]), "documents/a.bin")
    const file = (await call("getFile", { file_id: fileId })).body.result
    expect(file).toMatchObject({ file_id: fileId, file_size: 3, file_path: "documents/a.bin" })
    const download = await fetch(`${fake.apiRoot}/file/bot${fake.token}/${file.file_path}`)
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]))
  })
})
