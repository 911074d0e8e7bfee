/**
 * How chat streams are laid out in Redis (shared by the writer and the readers):
 *
 * - `<prefix>stream:<threadId>`: a Redis stream. Entry `0-1` marks the start of a run; event n
 *   (SSE id n) is entry `<n>-0` with field `c` (the chunk as JSON); the run's end is entry
 *   `<n>-2` with field `end`. Entry ids are event ids, so a reader resumes after `Last-Event-ID`
 *   with `XREAD … <id>-0`. The key expires `retention` after the end (or after the writer's
 *   lease, if the writer died and no reader sealed it: `sealScript`).
 * - `<prefix>streams:active`: a sorted set of the running threads, scored by when the writer's
 *   lease ends (the writer renews it while it runs). `activeStreamIds` on every replica.
 */
export const stream = (prefix: string, threadId: string) => `${prefix}stream:${threadId}`
export const active = (prefix: string) => `${prefix}streams:active`

const startId = "0-1"
export const eventId = (n: number) => `${n}-0`
export const endId = (n: number) => `${n}-2`

/**
 * Opens a run: refused (0) while another replica's lease on the thread holds; else the
 * previous run's entries go and the lease is taken (1). KEYS: active, stream; ARGV: thread,
 * lease ms, key expiry ms.
 */
export const openScript = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) > now then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('DEL', KEYS[2])
redis.call('XADD', KEYS[2], '${startId}', 'start', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
`

/** Renews a lease and the stream's expiry. KEYS: active, stream; ARGV: thread, lease ms, key expiry ms. */
export const renewScript = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`

/**
 * Ends the stream of a writer whose lease lapsed (its replica died): one event (`ARGV[2]`, the
 * chunk as JSON) after its last, then the end, as the writer would have; the lease goes. So
 * every replica's readers end the same way, at once. 1 sealed; 0 the lease holds (the writer
 * lives); -1 nothing to seal (the stream has its end, or is gone). KEYS: active, stream; ARGV:
 * thread, chunk JSON, key expiry ms.
 */
export const sealScript = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) > now then return 0 end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #last == 0 then return -1 end
local id = last[1][1]
local dash = string.find(id, '-', 1, true)
if string.sub(id, dash + 1) == '2' then return -1 end
local n = tonumber(string.sub(id, 1, dash - 1)) + 1
redis.call('XADD', KEYS[2], n .. '-0', 'c', ARGV[2])
redis.call('XADD', KEYS[2], n .. '-2', 'end', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`

/** 1 when the thread's lease holds. KEYS: active; ARGV: thread. */
export const isActiveScript = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) > now then return 1 end
return 0
`

/** The threads whose lease holds (read-only: lapsed ones are swept by the next open). KEYS: active. */
export const activeScript = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
`

export type Entry =
  | { readonly _tag: "Start" }
  | { readonly _tag: "End" }
  | { readonly _tag: "Event"; readonly id: number; readonly chunk: unknown }

/** One entry of a stream key, as `XRANGE`/`XREAD` return it. */
export const parseEntry = (id: string, fields: ReadonlyArray<string>): Entry => {
  const [n, seq] = id.split("-")
  if (seq === "0" && fields[0] === "c") return { _tag: "Event", id: Number(n), chunk: JSON.parse(fields[1] ?? "null") }
  return seq === "2" || fields[0] === "end" ? { _tag: "End" } : { _tag: "Start" }
}
