import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Metric, MetricState, Schema, Scope, TestClock } from "effect"
import * as ChannelRegistry from "../src/channels/ChannelRegistry.js"
import * as AppConfig from "../src/config/AppConfig.js"
import * as Ids from "../src/ids/Ids.js"
import * as DeliveringInbox from "../src/inbox/DeliveringInbox.js"
import { Inbox } from "../src/inbox/Inbox.js"
import * as InboxTools from "../src/inbox/InboxTools.js"
import * as SqlInboxStore from "../src/inbox/SqlInboxStore.js"
import * as BuiltinTools from "../src/kernel/BuiltinTools.js"
import * as Memory from "../src/memory/Memory.js"
import * as SqlObservationStore from "../src/memory/observational/SqlObservationStore.js"
import * as SqlMemoryStore from "../src/memory/SqlMemoryStore.js"
import * as ModelRegistry from "../src/models/ModelRegistry.js"
import * as SqlThreads from "../src/threads/SqlThreads.js"
import * as TimeTool from "../src/tools/TimeTool.js"
import * as ToolRegistry from "../src/tools/ToolRegistry.js"
import * as ToolsModule from "../src/tools/Tools.js"
import { Tools } from "../src/tools/Tools.js"
import * as TypedTool from "../src/tools/TypedTool.js"
import { tempSqliteStorageLayer } from "./support/files.js"

const definition = (name: string, requireApproval: boolean, run: (input: unknown) => unknown = (input) => input) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: "object", properties: {} },
  requireApproval,
  execute: (input: unknown) => Effect.sync(() => run(input)),
})

const toolsLayer = ToolsModule.layer.pipe(Layer.provideMerge(ToolRegistry.layer))

const callOptions = (toolCallId: string) => ({ toolCallId, messages: [] })

const configMemory = AppConfig.layerMemory.pipe(Layer.provide(ModelRegistry.layer({ env: {} })))

describe("toolId", () => {
  it("keeps built-in names and prefixes others with their source", () => {
    expect(ToolRegistry.toolId({ id: "time", kind: "builtin" }, "current_time")).toBe("current_time")
    expect(ToolRegistry.toolId({ id: "github", kind: "mcp" }, "create_issue")).toBe("github_create_issue")
  })

  it("makes ids providers accept, stable, and distinct for distinct tools", () => {
    const dotted = ToolRegistry.toolId({ id: "my.server", kind: "mcp" }, "read file")
    expect(dotted).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
    expect(ToolRegistry.toolId({ id: "my.server", kind: "mcp" }, "read file")).toBe(dotted)
    expect(ToolRegistry.toolId({ id: "my_server", kind: "mcp" }, "read_file")).not.toBe(dotted)
    const long = ToolRegistry.toolId({ id: "s".repeat(40), kind: "mcp" }, "t".repeat(40))
    expect(long.length).toBeLessThanOrEqual(64)
    expect(ToolRegistry.toolId({ id: "s".repeat(40), kind: "mcp" }, `${"t".repeat(39)}u`)).not.toBe(long)
  })
})

describe("ToolRegistry", () => {
  it.effect("a source lives as long as the scope that registered it", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.ToolRegistry
      const scope = yield* Scope.make()
      const source = { id: "probe", kind: "plugin" as const, tools: Effect.succeed([]) }
      yield* Scope.extend(registry.register(source), scope)
      expect((yield* registry.sources).map((registered) => registered.id)).toEqual(["probe"])
      const duplicate = yield* Effect.exit(Effect.scoped(registry.register(source)))
      expect(duplicate._tag).toBe("Failure")
      yield* Scope.close(scope, Effect.void as never)
      expect(yield* registry.sources).toEqual([])
    }).pipe(Effect.provide(ToolRegistry.layer)),
  )
})

describe("Tools.forRun", () => {
  it.effect("offers every registered tool under its id, with the source's approval policy", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.ToolRegistry
      yield* registry.register({
        id: "files",
        kind: "mcp",
        tools: Effect.succeed([definition("read", false), definition("delete", true)]),
      })
      const tools = yield* Tools
      const toolset = yield* tools.forRun({ threadId: "t", runId: "r" })
      expect(Object.keys(toolset).sort()).toEqual(["files_delete", "files_read"])
      const needs = (id: string, toolCallId: string) =>
        Effect.promise(async () => {
          const approval = toolset[id]!.needsApproval
          return typeof approval === "function" ? approval({}, callOptions(toolCallId)) : approval
        })
      expect(yield* needs("files_read", "c1")).toBe(false)
      expect(yield* needs("files_delete", "c1")).toBe(true)
      expect((yield* tools.list).map((tool) => [tool.id, tool.requireApproval])).toEqual([
        ["files_read", false],
        ["files_delete", true],
      ])
    }).pipe(Effect.scoped, Effect.provide(toolsLayer)),
  )

  it.effect("a call approved at the pause still needs (and gets) approval after the policy changed", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.ToolRegistry
      yield* registry.register({ id: "files", kind: "mcp", tools: Effect.succeed([definition("delete", false)]) })
      const toolset = yield* (yield* Tools).forRun({
        threadId: "t",
        runId: "r",
        approvedCalls: [
          { toolCallId: "approved-call", toolName: "files_delete" },
          { toolCallId: "orphan", toolName: "gone_tool" },
        ],
      })
      const approval = toolset.files_delete!.needsApproval as (input: unknown, options: unknown) => boolean
      expect(approval({}, callOptions("approved-call"))).toBe(true)
      expect(approval({}, callOptions("another-call"))).toBe(false)
      // The tool of an approved call has gone: it is still callable, and fails as a tool error.
      const gone = toolset.gone_tool!
      const result = yield* Effect.either(
        Effect.tryPromise(() => Promise.resolve(gone.execute!({}, { toolCallId: "orphan", messages: [] }))),
      )
      expect(result._tag).toBe("Left")
      expect(String((result as { left: { error: unknown } }).left.error)).toContain("gone_tool is no longer available")
    }).pipe(Effect.scoped, Effect.provide(toolsLayer)),
  )

  it.effect(
    "two sources meeting on one id (MCP `web` + `a_b`, plugin `web_a` + `b`) both stay, the later one suffixed",
    () =>
      Effect.gen(function* () {
        const registry = yield* ToolRegistry.ToolRegistry
        yield* registry.register({
          id: "web",
          kind: "mcp",
          tools: Effect.succeed([definition("a_b", false, () => "mcp")]),
        })
        // A plugin may share an MCP server's id: sources are kept apart by kind.
        yield* registry.register({ id: "web", kind: "plugin", tools: Effect.succeed([definition("z", false)]) })
        yield* registry.register({
          id: "web_a",
          kind: "plugin",
          tools: Effect.succeed([definition("b", false, () => "plugin")]),
        })
        const tools = yield* Tools
        const ids = (yield* tools.list).map((tool) => tool.id)
        expect(ids[0]).toBe("web_a_b")
        expect(ids[1]).toBe("web_z")
        expect(ids[2]).toMatch(/^web_a_b_[0-9a-f]{6}$/)
        const toolset = yield* tools.forRun({ threadId: "t", runId: "r" })
        expect(Object.keys(toolset).sort()).toEqual([...ids].sort())
        expect(yield* Effect.promise(() => Promise.resolve(toolset[ids[2]!]!.execute!({}, callOptions("c"))))).toBe(
          "plugin",
        )
      }).pipe(Effect.scoped, Effect.provide(toolsLayer)),
  )

  it.effect("a failing tool throws its message (the AI SDK hands it to the model)", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.ToolRegistry
      yield* registry.register({
        id: "probe",
        kind: "plugin",
        tools: Effect.succeed([
          {
            ...definition("broken", false),
            execute: () => Effect.fail(new ToolRegistry.ToolExecutionError({ message: "disk on fire" })),
          },
          definition("echo", false),
        ]),
      })
      const toolset = yield* (yield* Tools).forRun({ threadId: "t", runId: "r" })
      const broken = yield* Effect.either(
        Effect.tryPromise(() => Promise.resolve(toolset.probe_broken!.execute!({}, callOptions("c")))),
      )
      expect(String((broken as { left: { error: unknown } }).left.error)).toContain("disk on fire")
      const echoed = yield* Effect.promise(() =>
        Promise.resolve(toolset.probe_echo!.execute!({ a: 1 }, callOptions("c"))),
      )
      expect(echoed).toEqual({ a: 1 })
    }).pipe(Effect.scoped, Effect.provide(toolsLayer)),
  )
})

describe("tool call metrics", () => {
  /** `aide_tool_calls_total` of one source and outcome, read from the registry a host renders. */
  const toolCalls = (source: string, outcome: string) =>
    Effect.map(Metric.snapshot, (pairs) => {
      const pair = pairs.find(
        ({ metricKey: key }) =>
          key.name === "aide_tool_calls_total" &&
          key.tags.some((tag) => tag.key === "source" && tag.value === source) &&
          key.tags.some((tag) => tag.key === "outcome" && tag.value === outcome),
      )
      return pair !== undefined && MetricState.isCounterState(pair.metricState) ? Number(pair.metricState.count) : 0
    })

  it.effect("counts calls by the kind of their source (plugin calls countable), never by its id", () =>
    Effect.gen(function* () {
      const registry = yield* ToolRegistry.ToolRegistry
      yield* registry.register({
        id: "web-fetch",
        kind: "plugin",
        tools: Effect.succeed([
          definition("echo", false),
          {
            ...definition("broken", false),
            execute: () => Effect.fail(new ToolRegistry.ToolExecutionError({ message: "no" })),
          },
        ]),
      })
      yield* registry.register({ id: "github", kind: "mcp", tools: Effect.succeed([definition("echo", false)]) })
      const before = {
        pluginOk: yield* toolCalls("plugin", "ok"),
        pluginError: yield* toolCalls("plugin", "error"),
        mcpOk: yield* toolCalls("mcp", "ok"),
      }
      const toolset = yield* (yield* Tools).forRun({ threadId: "t", runId: "r" })
      const call = (id: string) =>
        Effect.either(Effect.tryPromise(() => Promise.resolve(toolset[id]!.execute!({}, callOptions("c")))))
      yield* call("web-fetch_echo")
      yield* call("web-fetch_echo")
      yield* call("web-fetch_broken")
      yield* call("github_echo")
      expect(yield* toolCalls("plugin", "ok")).toBe(before.pluginOk + 2)
      expect(yield* toolCalls("plugin", "error")).toBe(before.pluginError + 1)
      expect(yield* toolCalls("mcp", "ok")).toBe(before.mcpOk + 1)
      const labelled = (yield* Metric.snapshot).filter(({ metricKey }) => metricKey.name === "aide_tool_calls_total")
      for (const { metricKey } of labelled) {
        expect(metricKey.tags.map((tag) => tag.key).sort()).toEqual(["outcome", "source"])
      }
    }).pipe(Effect.scoped, Effect.provide(toolsLayer)),
  )
})

describe("built-in tools", () => {
  // The real inbox, on a temporary SQLite database.
  const inbox = DeliveringInbox.layer({}).pipe(
    Layer.provide(SqlInboxStore.layer),
    Layer.provide(Ids.layer),
    Layer.provideMerge(ChannelRegistry.layer),
    Layer.provideMerge(tempSqliteStorageLayer),
  )
  const builtins = Layer.mergeAll(BuiltinTools.layer, ToolsModule.layer).pipe(
    Layer.provideMerge(
      Memory.layer().pipe(
        Layer.provideMerge(SqlMemoryStore.layer),
        Layer.provide([
          SqlObservationStore.layer,
          SqlThreads.layer.pipe(Layer.provide(Ids.layer)),
          Ids.layer,
          ModelRegistry.layer({ env: {} }),
        ]),
      ),
    ),
    Layer.provideMerge(Layer.mergeAll(ToolRegistry.layer, configMemory, inbox)),
  )

  it.effect("current_time answers in the configured time zone, from the Clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 0, 15, 12, 0, 0))
      yield* (yield* AppConfig.AppConfig).patch({ timezone: "Asia/Tokyo" })
      const tool = yield* TimeTool.currentTime
      const context = { threadId: "t", runId: "r", toolCallId: "c" }
      const answer = (yield* tool.execute({}, context)) as { iso: string; timezone: string; local: string }
      expect(answer.iso).toBe("2026-01-15T12:00:00.000Z")
      expect(answer.timezone).toBe("Asia/Tokyo")
      expect(answer.local).toContain("21:00:00")
      const named = (yield* tool.execute({ timezone: "America/New_York" }, context)) as { local: string }
      expect(named.local).toContain("07:00:00")
      const unknown = yield* Effect.either(tool.execute({ timezone: "Mars/Olympus" }, context))
      expect(unknown).toMatchObject({ _tag: "Left", left: { message: 'unknown time zone "Mars/Olympus"' } })
    }).pipe(Effect.provide(configMemory)),
  )

  it.effect("notify puts a message in the web inbox with the conversation's thread", () =>
    Effect.gen(function* () {
      const toolset = yield* (yield* Tools).forRun({ threadId: "thread-9", runId: "r" })
      const answer = yield* Effect.promise(() =>
        Promise.resolve(toolset.notify!.execute!({ subject: "Reminder", body: "Water the plants" }, callOptions("c"))),
      )
      const [message] = yield* (yield* Inbox).list()
      expect(answer).toEqual({ id: message?.id, status: "sent" })
      expect(message).toMatchObject({
        subject: "Reminder",
        body: "Water the plants",
        threadId: "thread-9",
        destination: "web",
        status: "sent",
      })
    }).pipe(Effect.provide(builtins)),
  )

  it.effect(
    "update_working_memory is offered only while working memory is on, and edits by append and exact replace",
    () =>
      Effect.gen(function* () {
        const config = yield* AppConfig.AppConfig
        yield* config.patch({ memory: { workingMemory: { enabled: false } } })
        expect(Object.keys(yield* (yield* Tools).forRun({ threadId: "t", runId: "r" }))).not.toContain(
          "update_working_memory",
        )

        yield* config.patch({ memory: { workingMemory: { enabled: true } } })
        const toolset = yield* (yield* Tools).forRun({ threadId: "t", runId: "r" })
        const call = (input: unknown) =>
          Effect.promise(() => Promise.resolve(toolset.update_working_memory!.execute!(input, callOptions("c"))))
        yield* call({ action: "append", text: "- likes tea" })
        yield* call({ action: "append", text: "- lives in Oslo" })
        yield* call({ action: "replace", search: "Oslo", replacement: "Bergen" })
        expect(yield* (yield* Memory.Memory).workingMemory).toBe("- likes tea\n- lives in Bergen")
        // A refused edit reaches the model as a tool error with the reason.
        const refused = yield* Effect.either(
          Effect.tryPromise(() =>
            Promise.resolve(
              toolset.update_working_memory!.execute!(
                { action: "replace", search: "Paris", replacement: "x" },
                callOptions("d"),
              ),
            ),
          ),
        )
        expect(String(refused._tag === "Left" ? refused.left.error : "")).toContain("not in working memory")
      }).pipe(Effect.provide(builtins)),
  )
})

describe("TypedTool.make", () => {
  const context = { threadId: "t", runId: "r", toolCallId: "c" }
  const seen: Array<{ readonly city: string; readonly days: number }> = []
  const forecast = TypedTool.make({
    name: "forecast",
    description: "Weather forecast",
    parameters: Schema.Struct({
      city: Schema.String.annotations({ description: "City name" }),
      days: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 7)), { default: () => 3 }),
    }),
    execute: (input) => Effect.sync(() => seen.push(input)),
  })

  it("derives the JSON Schema the model sees from the Schema (no $schema key)", () => {
    expect(forecast.inputSchema).toMatchObject({
      type: "object",
      required: ["city"],
      properties: { city: { type: "string", description: "City name" } },
      additionalProperties: false,
    })
    const text = JSON.stringify(forecast.inputSchema)
    // Named refinements (`Int`) are inlined: some providers refuse `$ref`.
    expect(text).toContain('"type":"integer"')
    expect(text).toContain('"maximum":7')
    expect(text).not.toMatch(/\$ref|\$defs|\$schema/)
    expect(forecast.requireApproval).toBe(false)
  })

  it.effect("execute receives the decoded input (defaults applied)", () =>
    Effect.gen(function* () {
      seen.length = 0
      yield* forecast.execute({ city: "Oslo" }, context)
      expect(seen).toEqual([{ city: "Oslo", days: 3 }])
    }),
  )

  it.effect("an input the Schema refuses is a tool error naming every problem; execute never runs", () =>
    Effect.gen(function* () {
      seen.length = 0
      const refused = yield* Effect.flip(forecast.execute({ days: 9, extra: true }, context))
      expect(refused).toBeInstanceOf(ToolRegistry.ToolExecutionError)
      expect(refused.message).toMatch(/^invalid input: /)
      expect(refused.message).toContain("city: is missing")
      expect(refused.message).toContain("days:")
      expect(refused.message).toContain("extra: is unexpected")
      expect(seen).toEqual([])
    }),
  )

  it.effect("the built-ins are typed tools: notify refuses a blank subject before touching the inbox", () =>
    Effect.gen(function* () {
      const tool = yield* InboxTools.notify
      expect(tool.inputSchema).toMatchObject({ required: ["subject", "body"], additionalProperties: false })
      const refused = yield* Effect.flip(tool.execute({ subject: "  ", body: "x" }, context))
      expect(refused.message).toBe("invalid input: subject: must not be blank")
    }).pipe(
      Effect.provideService(Inbox, {
        create: () => Effect.die("the inbox must not be reached"),
        list: () => Effect.die("unused"),
        get: () => Effect.die("unused"),
        update: () => Effect.die("unused"),
        delete: () => Effect.die("unused"),
        destinations: Effect.succeed(["Web Inbox"]),
        resolveDestination: () => Effect.succeed("web"),
      }),
    ),
  )
})
