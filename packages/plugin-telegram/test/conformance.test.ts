import { fileURLToPath } from "node:url"
import { runChannelConformance } from "@aide/testing/channels"
import { telegramDriver } from "./telegram-driver.js"

// The channel conformance kit against the Telegram plugin over the fake Bot API (long polling).
// Telegram never redelivers an update once its offset is confirmed, so `redeliverLast` is absent
// and that check is skipped.
runChannelConformance({ plugin: fileURLToPath(new URL("..", import.meta.url)), driver: telegramDriver() })
