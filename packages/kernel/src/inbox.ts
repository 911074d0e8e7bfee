/**
 * @aide/kernel/inbox — the inbox: the Inbox service, its delivering Layer, its store and Layers, its `notify` tool.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as DeliveringInbox from "./inbox/DeliveringInbox.js"
export * as Inbox from "./inbox/Inbox.js"
export * as InboxStore from "./inbox/InboxStore.js"
export * as InboxTools from "./inbox/InboxTools.js"
export * as MemoryInboxStore from "./inbox/MemoryInboxStore.js"
export * as SqlInboxStore from "./inbox/SqlInboxStore.js"
