import { describe, expect, it } from "vitest"
import { when } from "../src/When.js"

describe("when: a timestamp as aide threads and aide inbox show it", () => {
  const now = new Date(2026, 10, 26, 15, 30, 0)
  const at = (days: number, hours: number, minutes: number) =>
    new Date(2026, 10, 26 - days, hours, minutes, 0).toISOString()

  it("reads relative within hours, then by day, then as a local date", () => {
    expect(when(new Date(2026, 10, 26, 15, 29, 30).toISOString(), now)).toBe("just now")
    expect(when(at(0, 15, 29), now)).toBe("1 min ago")
    expect(when(at(0, 15, 5), now)).toBe("25 min ago")
    expect(when(at(0, 11, 0), now)).toBe("4 h ago")
    expect(when(at(0, 8, 5), now)).toBe("today 08:05")
    expect(when(at(1, 14, 2), now)).toBe("yesterday 14:02")
    expect(when(at(6, 9, 0), now)).toBe("2026-11-20 09:00")
  })

  it("leaves what is not a timestamp as it is", () => {
    expect(when("not a date", now)).toBe("not a date")
  })
})
