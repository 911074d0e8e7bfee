import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Duration, Effect, Exit, Option } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { jsonSchemaOf } from "../tools/TypedTool.js"
import { allowedTools, type McpPrincipal } from "./McpAuthorizer.js"
import * as McpResources from "./McpResources.js"
import { McpSessionStore } from "./McpSessionStore.js"
import { type CallContext, decodeArguments, type PendingCall, ToolFailure } from "./McpToolSpec.js"
import { tools } from "./McpTools.js"

/** Runs an Effect of the endpoint's services from the SDK's callbacks (a Runtime of the Layer). */
export type Runner = <A, E>(effect: Effect.Effect<A, E, any>, signal?: AbortSignal) => Promise<Exit.Exit<A, E>>

/** What a session's server knows of its session. */
export interface SessionState {
  readonly id: string
  readonly principal: McpPrincipal
  readonly subscriptions: Set<string>
  /** Per subscribed URI, the digest of its content when last told (or subscribed). */
  readonly fingerprints: Map<string, string>
}

const toolsByName = new Map(tools.map((tool) => [tool.name, tool] as const))

/** How long a client may take to answer an elicitation (the owner deciding on a tool call). */
const decisionTimeout = Duration.toMillis(Duration.minutes(10))

const result = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  ...(typeof value === "object" && value !== null && !Array.isArray(value)
    ? { structuredContent: value as Record<string, unknown> }
    : {}),
})
const failure = (message: string): CallToolResult => ({ content: [{ type: "text", text: message }], isError: true })

const describe = (call: PendingCall) =>
  `Aide wants to run the tool ${call.toolName || call.toolCallId} with ${JSON.stringify(call.input)?.slice(0, 2_000)}. Allow it?`

/**
 * The MCP server of one session: the SDK's `McpServer`, its tools, resources and prompts served
 * by handlers on its low-level `Server`, because what a client sees follows the live config (the
 * owner's tool choice) and the schedule, which `McpServer`'s one-time registrations cannot.
 */
export const make = (state: SessionState, run: Runner, version: string) => {
  const mcp = new McpServer(
    { name: "aide", title: "Aide", version },
    {
      capabilities: { tools: {}, prompts: {}, resources: { subscribe: true } },
      instructions:
        "Aide is the owner's personal assistant: ask it (ask), search past conversations, read and update what it remembers, read the inbox and schedule work.",
    },
  )
  const server = mcp.server
  const allowed = async () => {
    const exit = await run(AppConfig.pipe(Effect.flatMap((config) => config.get)))
    return Exit.isSuccess(exit) ? allowedTools(state.principal, exit.value.mcpServer.tools) : []
  }
  const value = async <A>(effect: Effect.Effect<A, never, any>, signal?: AbortSignal) => {
    const exit = await run(effect, signal)
    if (Exit.isSuccess(exit)) return exit.value
    throw new McpError(ErrorCode.InternalError, "internal error")
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const names = await allowed()
    return {
      tools: tools
        .filter((tool) => names.includes(tool.name))
        .map((tool) => ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: { type: "object" as const, ...jsonSchemaOf(tool.input) },
          annotations: {
            title: tool.title,
            readOnlyHint: tool.readOnly,
            destructiveHint: tool.destructive,
            openWorldHint: false,
          },
        })),
    }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = toolsByName.get(request.params.name as never)
    if (tool === undefined || !(await allowed()).includes(tool.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`)
    }
    const progressToken = request.params._meta?.progressToken
    const context: CallContext = {
      progress: (progress, message) =>
        progressToken === undefined
          ? Effect.void
          : Effect.tryPromise(() =>
              extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken, progress, message },
              }),
            ).pipe(Effect.ignore),
      decide:
        server.getClientCapabilities()?.elicitation === undefined
          ? Option.none()
          : Option.some((call) =>
              Effect.tryPromise(() =>
                server.elicitInput(
                  {
                    message: describe(call),
                    requestedSchema: {
                      type: "object",
                      properties: { approved: { type: "boolean", title: "Allow", description: describe(call) } },
                      required: ["approved"],
                    },
                  },
                  { relatedRequestId: extra.requestId, timeout: decisionTimeout },
                ),
              ).pipe(
                Effect.map((answer) =>
                  answer.action === "accept"
                    ? answer.content?.approved === true
                    : answer.action === "decline"
                      ? false
                      : undefined,
                ),
                // A client that cannot answer leaves the call waiting: `approve` decides it later.
                Effect.orElseSucceed(() => undefined),
              ),
            ),
    }
    const exit = await run(
      Effect.flatMap(decodeArguments(tool.input, request.params.arguments), (input) => tool.run(input, context)),
      extra.signal,
    )
    if (Exit.isSuccess(exit)) return result(exit.value)
    const failed = Cause.failureOption(exit.cause)
    if (Option.isSome(failed) && failed.value instanceof ToolFailure) return failure(failed.value.message)
    await run(Effect.logError("mcp: tool call failed", { tool: tool.name }, exit.cause))
    return failure("internal error")
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const names = await allowed()
    const threads = names.includes("threads_search") ? await value(McpResources.listThreads.pipe(Effect.orDie)) : []
    return { resources: [...McpResources.listResources(names), ...threads] }
  })
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: McpResources.listTemplates(await allowed()),
  }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const content = await value(McpResources.read(request.params.uri, await allowed()))
    if (Option.isNone(content)) throw new McpError(-32002, "Resource not found", { uri: request.params.uri })
    return { contents: [{ uri: request.params.uri, ...content.value }] }
  })
  const subscriptions = (change: (uris: Set<string>) => void) => async () => {
    change(state.subscriptions)
    for (const uri of state.fingerprints.keys()) if (!state.subscriptions.has(uri)) state.fingerprints.delete(uri)
    for (const uri of state.subscriptions) {
      if (!state.fingerprints.has(uri)) state.fingerprints.set(uri, await value(McpResources.fingerprint(uri)))
    }
    await value(
      Effect.flatMap(McpSessionStore, (store) => store.setSubscriptions(state.id, [...state.subscriptions])).pipe(
        Effect.orDie,
      ),
    )
    return {}
  }
  server.setRequestHandler(SubscribeRequestSchema, (request) =>
    subscriptions((uris) => {
      // Bounded: a client subscribing to every thread id it can think of holds no more than this.
      if (uris.size < 100) uris.add(request.params.uri)
    })(),
  )
  server.setRequestHandler(UnsubscribeRequestSchema, (request) =>
    subscriptions((uris) => uris.delete(request.params.uri))(),
  )

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: (await allowed()).includes("schedule_list") ? await value(McpResources.listPrompts) : [],
  }))
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const prompt = (await allowed()).includes("schedule_list")
      ? await value(McpResources.getPrompt(request.params.name))
      : Option.none()
    if (Option.isNone(prompt)) throw new McpError(ErrorCode.InvalidParams, `Prompt ${request.params.name} not found`)
    return prompt.value
  })
  return mcp
}
