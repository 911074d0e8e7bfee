import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import type { ChannelRegistry } from "../channels/ChannelRegistry.js"
import type { Ids } from "../ids/Ids.js"
import type { StorageError } from "../storage/StorageError.js"
import * as DeliveringInbox from "./DeliveringInbox.js"
import type { Inbox } from "./Inbox.js"
import * as SqlInboxStore from "./SqlInboxStore.js"

/**
 * The inbox on SQL in one Layer: `DeliveringInbox.layer` over `SqlInboxStore.layer`. Kept for
 * code written before the two were apart; compose them yourself to swap the store.
 */
export type DeliveryOptions = DeliveringInbox.DeliveryOptions
export const defaults = DeliveringInbox.defaults

/** `Inbox` on a `SqlClient` with another delivery policy (tests use short or long delays). */
export const layerWith = (
  options: DeliveryOptions,
): Layer.Layer<Inbox, StorageError, SqlClient.SqlClient | ChannelRegistry | Ids> =>
  DeliveringInbox.layer(options).pipe(Layer.provide(SqlInboxStore.layer))

/** `Inbox` on a `SqlClient` with the default delivery policy. */
export const layer = layerWith({})
