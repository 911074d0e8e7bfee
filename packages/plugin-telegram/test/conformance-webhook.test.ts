import { fileURLToPath } from "node:url"
import { runChannelConformance } from "@aide/testing/channels"
import { telegramDriver } from "./telegram-driver.js"

// The kit against the Telegram plugin in webhook mode: each update POSTed to its webhook through
// the gateway (secret token checked), as Telegram delivers them. No connection to drop.
runChannelConformance({
  name: "telegram (webhook)",
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  driver: telegramDriver("webhook"),
})
