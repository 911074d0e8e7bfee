// @ts-check
/**
 * The Matrix channel: a function of the plugin's settings returning a realtime channel that
 * long-polls `/sync` (see sync.js), replies with `m.notice` messages and takes approvals as
 * reactions. The network goes through the context's brokered `fetch`.
 */
/** @import { ChannelContext, ChannelDefinition } from "@aide/plugin" */
import { createClient, enc, MatrixError } from "./client.js"
import { createTxnMemo, sendNotification, sendReply } from "./outbound.js"
import { runSync } from "./sync.js"

/** @param {unknown} value */
const textOf = (value) => (typeof value === "string" || typeof value === "number" ? String(value).trim() : "")

/**
 * @param {Readonly<Record<string, unknown>>} config
 * @param {Readonly<Record<string, string>>} env
 */
export const settingsOf = (config, env) => {
  const homeserver = textOf(config.homeserverUrl).replace(/\/+$/, "")
  if (!/^https?:\/\/[^/]+/.test(homeserver)) {
    throw new Error("matrix: homeserverUrl must be your homeserver's URL, e.g. https://matrix.example.org")
  }
  const accessToken = textOf(config.accessToken) || textOf(env.MATRIX_ACCESS_TOKEN)
  if (accessToken === "") throw new Error("matrix: set accessToken (or the MATRIX_ACCESS_TOKEN environment variable)")
  const allowFrom = textOf(config.allowFrom)
    .split(/[\s,]+/)
    .filter((id) => id !== "")
  const wrong = allowFrom.filter((id) => !/^@[^:\s]+:[^\s]+$/.test(id))
  if (wrong.length > 0) {
    throw new Error(`matrix: allowFrom takes full user ids like @you:example.org; not ${wrong.slice(0, 3).join(", ")}`)
  }
  return { homeserver, accessToken, allowFrom, pairing: config.pairing === true || config.pairing === "true" }
}

/**
 * @param {{ readonly config: Readonly<Record<string, unknown>>, readonly env: Readonly<Record<string, string>> }} setup
 * @returns {ChannelDefinition}
 */
const matrix = ({ config, env }) => {
  const settings = settingsOf(config, env)
  /** @type {typeof fetch | null} */
  let currentFetch = null
  const client = createClient({
    homeserver: settings.homeserver,
    token: settings.accessToken,
    fetch: (input, init) => {
      if (currentFetch === null) throw new Error("matrix: no context.fetch yet")
      return currentFetch(input, init)
    },
  })
  /** @param {ChannelContext} context */
  const clientOf = (context) => {
    currentFetch = context.fetch
    return client
  }
  const memo = createTxnMemo()
  const state = { since: /** @type {string | null} */ (null) }
  /** @type {string | null} */
  let ownId = null
  /** @param {AbortSignal} signal */
  const whoami = async (signal) => {
    if (ownId !== null) return ownId
    try {
      const answer = await client.request("GET", "/account/whoami", { signal })
      if (typeof answer?.user_id !== "string") throw new Error("matrix: whoami gave no user_id")
      ownId = answer.user_id
      return answer.user_id
    } catch (error) {
      if (error instanceof MatrixError && error.status === 401) {
        throw new Error(`matrix: the homeserver refused the access token (${error.errcode ?? 401}): check accessToken`)
      }
      throw error
    }
  }
  /** `m.direct` account data (the spec's record of DM rooms), read and updated. @param {string} userId @param {AbortSignal} signal */
  const directRooms = async (userId, signal) => {
    try {
      const data = await client.request("GET", `/user/${enc(userId)}/account_data/m.direct`, { signal })
      return typeof data === "object" && data !== null ? /** @type {Record<string, string[]>} */ (data) : {}
    } catch (error) {
      if (error instanceof MatrixError && error.errcode === "M_NOT_FOUND") return {}
      throw error
    }
  }
  /** @param {string} userId @param {string} other @param {string} roomId @param {AbortSignal} signal */
  const rememberDirect = async (userId, other, roomId, signal) => {
    const direct = await directRooms(userId, signal)
    const rooms = Array.isArray(direct[other]) ? direct[other] : []
    if (rooms.includes(roomId)) return
    await client.request("PUT", `/user/${enc(userId)}/account_data/m.direct`, {
      body: { ...direct, [other]: [roomId, ...rooms] },
      signal,
    })
  }
  return {
    id: "matrix",
    name: "Matrix",
    realtime: {
      start: async (context) => {
        clientOf(context)
        try {
          const userId = await whoami(context.signal)
          await runSync(
            {
              client,
              userId,
              allowFrom: settings.allowFrom,
              pairing: settings.pairing,
              state,
              onJoined: (inviter, roomId) => rememberDirect(userId, inviter, roomId, context.signal),
            },
            context,
          )
        } catch (error) {
          if (context.signal.aborted) return
          throw error
        }
      },
    },
    send: (message, context) => sendReply(clientOf(context), memo, message, context.signal),
    notify: async (notification, context) => {
      const owner = settings.allowFrom[0]
      if (owner === undefined) throw new Error("matrix: notifications go to the first id of allowFrom; it is empty")
      clientOf(context)
      const userId = await whoami(context.signal)
      let roomId = (await directRooms(userId, context.signal))[owner]?.[0]
      if (roomId === undefined) {
        // No DM with the owner yet: open one (the owner accepts the invite in their client).
        const created = await client.request("POST", "/createRoom", {
          body: { is_direct: true, preset: "trusted_private_chat", invite: [owner], name: "Aide" },
          signal: context.signal,
        })
        if (typeof created?.room_id !== "string") throw new Error("matrix: createRoom gave no room_id")
        roomId = /** @type {string} */ (created.room_id)
        await rememberDirect(userId, owner, roomId, context.signal)
      }
      await sendNotification(client, memo, roomId, notification, context.signal)
    },
  }
}

export default matrix
