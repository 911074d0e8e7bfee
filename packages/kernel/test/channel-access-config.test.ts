import { describe, expect, it } from "@effect/vitest"
import { accessOf, redact } from "../src/plugins/loader/ChannelAccessConfig.js"

const fields = (...keys: Array<string>) => keys.map((key) => ({ key, type: "text" as const }))

describe("a channel plugin's access settings", () => {
  it("allowFrom is split on commas, spaces and new lines; ownerId is one more entry", () => {
    expect(accessOf(fields("allowFrom", "ownerId", "pairing"), { allowFrom: "1, 2\n3;  4 ,", ownerId: 42 })).toEqual({
      allowFrom: ["1", "2", "3", "4", "42"],
      pairing: false,
      groups: false,
    })
  })

  it("pairing and groups are on only when declared and true", () => {
    expect(accessOf(fields("allowFrom", "pairing", "groups"), { pairing: true, groups: "true" })).toEqual({
      allowFrom: [],
      pairing: true,
      groups: false,
    })
    expect(accessOf(fields("allowFrom"), { pairing: true, groups: true })).toMatchObject({
      pairing: false,
      groups: false,
    })
  })

  it("a plugin declaring none of the keys is not filtered; an undeclared allowFrom value is ignored", () => {
    expect(accessOf(fields("secret", "callbackUrl"), { allowFrom: "1" })).toBeNull()
    expect(accessOf(fields("pairing"), { allowFrom: "1" })).toEqual({ allowFrom: [], pairing: false, groups: false })
  })

  it("an error shown on the card has the plugin's secrets masked and is bounded", () => {
    const declared = [
      { key: "botToken", type: "password" as const },
      { key: "apiRoot", type: "text" as const },
    ]
    const values = { botToken: "123:SECRET", apiRoot: "https://api.example" }
    const message = redact("GET https://api.example/bot123:SECRET/getUpdates failed (KEY-abc)", declared, values, {
      EXTRA_KEY: "KEY-abc",
    })
    expect(message).toBe("GET https://api.example/bot••••••/getUpdates failed (••••••)")
    expect(redact("x".repeat(800), declared, values, {})).toHaveLength(500)
  })
})
