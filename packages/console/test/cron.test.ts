import { describe, expect, it } from "vitest"
import { describeCron, formatRun, nextRuns } from "../src/cron.js"

describe("describeCron", () => {
  it.each([
    ["0 9 * * 1-5", "At 09:00, Monday through Friday"],
    ["30 7 * * *", "At 07:30"],
    ["*/15 * * * *", "Every 15 minutes"],
    ["* * * * *", "Every minute"],
    ["5 * * * *", "At minute 5 of every hour"],
    ["0 8,18 * * *", "At 08:00, 18:00"],
    ["0 0 1 * *", "At 00:00, on day 1 of the month"],
    ["0 12 * 1,7 0", "At 12:00, in January and July, Sunday"],
    ["* * * * * *", "Every second"],
    ["*/10 * * * * *", "Every 10 seconds"],
  ])("reads %s as “%s”", (expression, words) => {
    expect(describeCron(expression)).toBe(words)
  })

  it("says what is wrong with a malformed expression", () => {
    expect(describeCron("every day")).toMatch(/^Not a cron expression/)
  })
})

describe("nextRuns", () => {
  const from = new Date("2026-03-27T12:00:00Z")

  it("lists the next runs in the task's time zone", () => {
    const result = nextRuns("0 9 * * 1-5", "Europe/Paris", from, 3)
    expect(result.ok && result.runs.map((date) => date.toISOString())).toEqual([
      "2026-03-30T07:00:00.000Z", // Monday, after the switch to summer time (UTC+2)
      "2026-03-31T07:00:00.000Z",
      "2026-04-01T07:00:00.000Z",
    ])
  })

  it("skips a local time that does not exist on the DST night to the next valid instant", () => {
    const result = nextRuns("30 2 * * *", "Europe/Paris", new Date("2026-03-28T12:00:00Z"), 2)
    expect(result.ok && result.runs[0]?.toISOString()).toBe("2026-03-29T01:30:00.000Z") // 03:30 CEST
  })

  it("reports an invalid expression instead of throwing", () => {
    const result = nextRuns("61 * * * *", "UTC", from)
    expect(result.ok).toBe(false)
  })

  it("formats a run in its time zone", () => {
    expect(formatRun(new Date("2026-03-30T07:00:00Z"), "Europe/Paris")).toContain("09:00")
  })
})
