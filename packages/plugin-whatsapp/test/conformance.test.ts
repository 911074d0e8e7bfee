import { fileURLToPath } from "node:url"
import { runChannelConformance } from "@aide/testing/channels"
import { whatsappDriver } from "./whatsapp-driver.js"

// The channel conformance kit against the WhatsApp plugin: every delivery signed and POSTed
// through Aide's webhook route logic (the kit's `webhook`), as Meta delivers them. No group
// rooms (the Cloud API has none here) and no connection to drop: those checks are skipped.
runChannelConformance({
  name: "whatsapp (Cloud API webhook)",
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  driver: whatsappDriver(),
})
