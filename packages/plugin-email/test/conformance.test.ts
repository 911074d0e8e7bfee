import { fileURLToPath } from "node:url"
import { runChannelConformance } from "@aide/testing/channels"
import { describe, it } from "vitest"
import { emailDriver } from "./email-driver.js"
import { unavailable } from "./mail-server.js"

// The channel conformance kit against the e-mail plugin over a real mail server (Dovecot + smtp-server).
// Skipped: "splitting": mail has no length limit, so one answer is one mail (several mails for one
// answer would only scatter it in the owner's inbox).
const reason = unavailable()
if (reason === null) {
  runChannelConformance({
    plugin: fileURLToPath(new URL("..", import.meta.url)),
    driver: emailDriver(),
    skip: ["splitting"],
  })
} else {
  describe.skip(`channel conformance: plugin-email (${reason})`, () => {
    it("needs Dovecot", () => undefined)
  })
}
