import { fileURLToPath } from "node:url"
import { runChannelConformance } from "@aide/testing/channels"
import { discordDriver } from "./discord-driver.js"

// The channel conformance kit against the Discord plugin, loaded by Aide's real loader, over the
// fake Discord (Gateway + REST on loopback) and the brokered fetch and webSocket. The Gateway
// does not redeliver a dispatched event (a resume replays only what came after the last
// sequence number), so `redeliverLast` is absent and that check is skipped.
runChannelConformance({ plugin: fileURLToPath(new URL("..", import.meta.url)), driver: discordDriver() })
