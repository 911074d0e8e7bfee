import { Effect, Layer, Option } from "effect"
import {
  type McpClientRow,
  type McpCodeState,
  type McpGrantRow,
  McpGrantStore,
  type McpGrantView,
  type McpTokenState,
} from "./McpGrantStore.js"

interface GrantState extends McpGrantRow {
  readonly revokedAt: string | null
}

/** `McpGrantStore` in this process only: every grant ends with it, and no other replica sees them. */
export const make = Effect.sync(() => {
  const clients = new Map<string, McpClientRow>()
  const codes = new Map<string, McpCodeState>()
  const grants = new Map<string, GrantState>()
  const tokens = new Map<string, McpTokenState>()

  const live = (grant: GrantState | undefined, now: string): grant is GrantState =>
    grant !== undefined && grant.revokedAt === null && grant.expiresAt > now

  const view = (grant: GrantState): McpGrantView => {
    const { revokedAt: _revoked, ...row } = grant
    const client = clients.get(grant.clientId)
    return { ...row, clientName: client?.name ?? "", redirectUris: client?.redirectUris ?? [] }
  }

  // Every method is synchronous: nothing interleaves, so each is atomic as the contract asks.
  return McpGrantStore.of({
    createClient: (client) => Effect.sync(() => void clients.set(client.id, client)),
    getClient: (id) => Effect.sync(() => Option.fromNullable(clients.get(id))),
    countClients: Effect.sync(() => clients.size),
    purgeUnusedClients: (before) =>
      Effect.sync(() => {
        const used = new Set([...grants.values()].map((grant) => grant.clientId))
        let deleted = 0
        for (const [id, client] of clients) {
          if (client.createdAt < before && !used.has(id)) {
            clients.delete(id)
            deleted++
          }
        }
        return deleted
      }),
    createCode: (code) => Effect.sync(() => void codes.set(code.hash, { ...code, usedAt: null, grantId: null })),
    redeemCode: ({ hash, now, grant, tokens: issued }) =>
      Effect.sync(() => {
        const code = codes.get(hash)
        if (code === undefined || code.usedAt !== null || code.expiresAt <= now) return Option.none()
        codes.set(hash, { ...code, usedAt: now, grantId: grant.id })
        grants.set(grant.id, { ...grant, revokedAt: null })
        for (const token of issued) tokens.set(token.hash, { ...token, rotatedAt: null })
        const { usedAt: _used, grantId: _grant, ...row } = code
        return Option.some(row)
      }),
    findCode: (hash) => Effect.sync(() => Option.fromNullable(codes.get(hash))),
    rotateRefreshToken: ({ hash, now, expiresAt, tokens: issued }) =>
      Effect.sync(() => {
        const token = tokens.get(hash)
        if (token === undefined || token.kind !== "refresh" || token.rotatedAt !== null || token.expiresAt <= now) {
          return Option.none()
        }
        const grant = grants.get(token.grantId)
        if (grant === undefined || grant.revokedAt !== null) return Option.none()
        tokens.set(hash, { ...token, rotatedAt: now })
        for (const next of issued) tokens.set(next.hash, { ...next, rotatedAt: null })
        const renewed = { ...grant, expiresAt }
        grants.set(grant.id, renewed)
        const { revokedAt: _revoked, ...row } = renewed
        return Option.some(row)
      }),
    findToken: (hash) => Effect.sync(() => Option.fromNullable(tokens.get(hash))),
    authenticate: (accessHash, now) =>
      Effect.sync(() => {
        const token = tokens.get(accessHash)
        if (token === undefined || token.kind !== "access" || token.expiresAt <= now) return Option.none()
        const grant = grants.get(token.grantId)
        return live(grant, now) ? Option.some(view(grant)) : Option.none()
      }),
    listGrants: (now) =>
      Effect.sync(() =>
        [...grants.values()]
          .filter((grant) => live(grant, now))
          .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
          .map(view),
      ),
    revokeGrant: (id, now) =>
      Effect.sync(() => {
        const grant = grants.get(id)
        if (!live(grant, now)) return false
        grants.set(id, { ...grant, revokedAt: now })
        return true
      }),
    purge: (before) =>
      Effect.sync(() => {
        for (const [hash, code] of codes) if (code.expiresAt < before) codes.delete(hash)
        for (const [id, grant] of grants) {
          if (grant.expiresAt < before || (grant.revokedAt !== null && grant.revokedAt < before)) grants.delete(id)
        }
        for (const [hash, token] of tokens) {
          if (token.expiresAt < before || !grants.has(token.grantId)) tokens.delete(hash)
        }
      }),
  })
})

export const layer: Layer.Layer<McpGrantStore> = Layer.effect(McpGrantStore, make)
