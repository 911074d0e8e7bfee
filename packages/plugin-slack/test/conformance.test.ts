import { fileURLToPath } from "node:url"
import { runChannelConformance } from "@aide/testing/channels"
import { slackDriver } from "./slack-driver.js"

// The channel conformance kit against the Slack plugin in Socket Mode over the fake Slack, loaded
// by the real plugin loader (compartment sandbox, brokered fetch and WebSocket).
runChannelConformance({ plugin: fileURLToPath(new URL("..", import.meta.url)), driver: slackDriver() })
