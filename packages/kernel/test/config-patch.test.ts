import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { ConfigPatch } from "../src/config/ConfigModel.js"
import { problemsOf, schemaOf } from "../src/config/MergePatch.js"
import { describeIssues, describeParseError } from "../src/validation/Problems.js"

/** Issue 10, item 5: the body of PATCH /api/config is the deep partial of the config document. */

const decode = Schema.decodeUnknownEither(ConfigPatch)
const problem = (patch: unknown) =>
  Either.match(decode(patch), { onLeft: (error) => describeParseError(error).join("; "), onRight: () => undefined })

describe("ConfigPatch", () => {
  it("takes any key alone, at any depth, and null on any key", () => {
    expect(decode({ models: { operator: { temperature: 1 } } })).toEqual(
      Either.right({ models: { operator: { temperature: 1 } } }),
    )
    expect(Either.isRight(decode({ identity: { name: null }, mcpServers: { old: null }, timezone: null }))).toBe(true)
  })

  it("keeps the checks of the values, worded as the kernel words the merged document", () => {
    expect(problem({ timezone: "Mars/Olympus" })).toMatch(/^timezone: unknown time zone "Mars\/Olympus"/)
    expect(problem({ models: { operator: { temperature: 5, maxTokens: -3 } } })).toBe(
      "models.operator.temperature: must be a number between 0 and 2; models.operator.maxTokens: must be a positive integer",
    )
    expect(problem({ identity: 5 })).toBe("identity: must be an object")
    expect(problem([1, 2])).toBe("request body must be a JSON object")
  })

  it("leaves a rule across keys to the merged document: a server may be patched one field at a time", () => {
    expect(Either.isRight(decode({ mcpServers: { remote: { name: "Remote tools" } } }))).toBe(true)
  })

  it("applies no defaults: a patch sets only what it sends", () => {
    expect(decode({ plugins: { weather: { units: "metric" } } })).toEqual(
      Either.right({ plugins: { weather: { units: "metric" } } }),
    )
  })

  it("sends arrays whole: each item is checked as the document checks it", () => {
    expect(problem({ schedule: { tasks: [{ id: "x", name: "n", prompt: "p", cron: "* * * * *" }] } })).toBe(
      'schedule.tasks.0.id: "x" is not a UUID',
    )
  })

  it("lets unknown keys through to the config, and words them when the patch does not decode", () => {
    expect(Either.isRight(decode({ theme: "dark" }))).toBe(true)
    expect(problem({ theme: "dark", timezone: 5 })).toMatch(/^theme: unknown key \(expected one of "identity" \| /)
    expect(problem({ theme: null, timezone: 5 })).toBe("timezone: Expected string, actual 5")
  })
})

describe("MergePatch.problemsOf", () => {
  const Server = schemaOf(
    Schema.Struct({ url: Schema.String, headers: Schema.Record({ key: Schema.String, value: Schema.String }) }),
  )
  const problems = (patch: unknown) => describeIssues(problemsOf(Server)(patch))

  it("counts an unknown key holding null as no problem (it deletes nothing) and any other value as one", () => {
    expect(problems({ colour: null, headers: { A: null } })).toEqual([])
    expect(problems({ colour: "red" })).toEqual(['colour: unknown key (expected one of "url" | "headers")'])
  })
})

describe("Problems.describeIssues", () => {
  const issue = (path: ReadonlyArray<string>, message: string) => ({ _tag: "Type" as const, path, message })

  it("names the path, or the root for a problem of the whole", () => {
    expect(describeIssues([issue(["a", "b"], "must be an object")])).toEqual(["a.b: must be an object"])
    expect(describeIssues([issue([], "must be a JSON object")], "config")).toEqual(["config: must be a JSON object"])
    expect(describeIssues([issue([], "request body must be a JSON object")])).toEqual([
      "request body must be a JSON object",
    ])
  })

  it("words a missing field as SPEC does in a request body, as `path: reason` in a document", () => {
    expect(describeIssues([issue(["title"], "is missing")])).toEqual(["title is required"])
    expect(describeIssues([issue(["tasks", "0", "id"], "is missing")], "config")).toEqual(["tasks.0.id: is required"])
  })

  it("leaves a message that names its field alone", () => {
    expect(describeIssues([issue(["threadId"], "runId and threadId are required")])).toEqual([
      "runId and threadId are required",
    ])
    expect(describeIssues([issue(["cron"], 'invalid cron expression "x"')])).toEqual([
      'cron: invalid cron expression "x"',
    ])
  })

  it("answers a value that is neither the type nor null with the type's problem alone", () => {
    expect(
      describeIssues([issue(["cron"], "Expected string, actual 5"), issue(["cron"], "Expected null, actual 5")]),
    ).toEqual(["cron: Expected string, actual 5"])
    expect(
      describeIssues([issue(["a", "b"], "Expected string, actual 5"), issue(["a"], 'Expected null, actual {"b":5}')]),
    ).toEqual(["a.b: Expected string, actual 5"])
  })
})
