/**
 * @aide/kernel/inbox — the inbox: the Inbox service, its delivering Layer, its store and Layers, its `notify` tool;
 * Web Push to the owner's browsers (`WebPush`, its errors and store).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as DeliveringInbox from "./inbox/DeliveringInbox.js"
export * as Inbox from "./inbox/Inbox.js"
export * as InboxStore from "./inbox/InboxStore.js"
export * as InboxTools from "./inbox/InboxTools.js"
export * as MemoryInboxStore from "./inbox/MemoryInboxStore.js"
export * as SqlInboxStore from "./inbox/SqlInboxStore.js"
export * as MemoryPushStore from "./push/MemoryPushStore.js"
export * as PushErrors from "./push/PushErrors.js"
export * as PushStore from "./push/PushStore.js"
export * as SqlPushStore from "./push/SqlPushStore.js"
export * as WebPush from "./push/WebPush.js"
