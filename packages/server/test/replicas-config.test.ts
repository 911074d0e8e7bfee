import { ServerConfig } from "@aide/server"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"

/** The configuration as `aide-server` reads it from these environment variables. */
const read = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(
      Effect.withConfigProvider(ServerConfig.fromEnv, ConfigProvider.fromMap(new Map(Object.entries(env)))),
    ),
  )

const problemOf = (env: Record<string, string>) => {
  const result = read(env)
  return Either.isLeft(result) ? String(result.left) : undefined
}

const postgres = "postgres://aide:hunter2@db.example:5432/aide"
const redis = "redis://:hunter2@cache.example:6379"

describe("AIDE_REPLICAS and REDIS_URL", () => {
  it("one replica by default, with or without Redis", () => {
    const plain = read({})
    expect(Either.isRight(plain) && plain.right.replicas).toBe("one")
    const withRedis = read({ REDIS_URL: redis, AIDE_REDIS_PREFIX: "team:" })
    expect(Either.isRight(withRedis) && Option.map(withRedis.right.redisUrl!, Redacted.value)).toEqual(
      Option.some(redis),
    )
    expect(Either.isRight(withRedis) && withRedis.right.redisKeyPrefix).toBe("team:")
  })

  it("many replicas on SQLite are refused, naming what is missing", () => {
    const problem = problemOf({ AIDE_REPLICAS: "many", REDIS_URL: redis })
    expect(problem).toMatch(/AIDE_REPLICAS=many needs DATABASE_URL/)
    expect(problem).not.toContain("hunter2")
  })

  it("many replicas without Redis are refused", () => {
    const problem = problemOf({ AIDE_REPLICAS: "many", DATABASE_URL: postgres })
    expect(problem).toMatch(/AIDE_REPLICAS=many needs REDIS_URL/)
    expect(problem).not.toContain("hunter2")
  })

  it("many replicas on PostgreSQL and Redis start", () => {
    const config = read({ AIDE_REPLICAS: "many", DATABASE_URL: postgres, REDIS_URL: redis })
    expect(Either.isRight(config) && config.right.replicas).toBe("many")
  })

  it.each([
    ["a word", { AIDE_REPLICAS: "two" }, /AIDE_REPLICAS/],
    ["another scheme", { REDIS_URL: "memcached://:hunter2@cache:11211" }, /REDIS_URL names a memcached server/],
    ["not a URL", { REDIS_URL: "hunter2" }, /REDIS_URL is not a URL/],
  ])("refuses %s, never echoing a secret", (_, env, reason) => {
    const problem = problemOf(env)
    expect(problem).toMatch(reason)
    expect(problem).not.toContain("hunter2")
  })
})
