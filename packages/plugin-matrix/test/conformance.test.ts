import { fileURLToPath } from "node:url"
import { runChannelConformance } from "@aide/testing/channels"
import { matrixDriver } from "./matrix-driver.js"

// The channel conformance kit against the Matrix plugin, loaded by Aide's real loader, over the
// fake homeserver and the brokered fetch. "Reconnect" cuts the open long poll; "no duplicate"
// has the homeserver serve the same event again at a later stream position.
runChannelConformance({ plugin: fileURLToPath(new URL("..", import.meta.url)), driver: matrixDriver() })
