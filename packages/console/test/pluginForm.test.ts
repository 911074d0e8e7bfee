import { describe, expect, it } from "vitest"
import { type ConfigField, pluginPatch, redactedValue } from "../src/pluginForm.js"

const fields: ReadonlyArray<ConfigField> = [
  { key: "apiToken", label: "API token", type: "password", required: true },
  { key: "units", label: "Units", type: "enum", options: [{ value: "metric" }, { value: "imperial" }] },
  { key: "days", label: "Days", type: "number" },
  { key: "alerts", label: "Alerts", type: "boolean" },
  { key: "city", label: "City", type: "text" },
]

const form = (values: Record<string, string>) => ({ get: (key: string) => values[key] ?? null })

describe("a plugin's settings form as a config patch", () => {
  it("types each value by its field", () => {
    expect(
      pluginPatch(fields, form({ apiToken: "s3cret", units: "imperial", days: "3", alerts: "on", city: " Lyon " })),
    ).toEqual({ apiToken: "s3cret", units: "imperial", days: 3, alerts: true, city: "Lyon" })
  })

  it("clears emptied fields, an unchecked box is false, a redacted password goes back as shown", () => {
    expect(pluginPatch(fields, form({ apiToken: redactedValue, units: "", days: "" }))).toEqual({
      apiToken: redactedValue,
      units: null,
      days: null,
      alerts: false,
      city: null,
    })
  })

  it("keeps a password's spaces", () => {
    expect(pluginPatch(fields, form({ apiToken: " pass phrase " })).apiToken).toBe(" pass phrase ")
  })
})
