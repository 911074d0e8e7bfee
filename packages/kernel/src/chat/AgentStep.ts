import type { LanguageModelUsage, ModelMessage, ToolSet, UIMessage, UIMessageChunk } from "ai"
import { Context, type Effect } from "effect"
import type { ResolvedModel } from "../models/ModelRegistry.js"
import type { StoredMessage } from "../threads/Threads.js"
import type { ChatModelError } from "./ChatErrors.js"
import type { AssistantMetadata } from "./ChatModel.js"

/**
 * What one agent step of a run is given: everything Aide built for this turn of the thread.
 * A step is the agent's turn, not a single model request: it may call the model and its tools
 * several times (up to `maxSteps`), and it ends with the answer or with calls waiting for the
 * owner's approval.
 */
export interface AgentStepInput {
  readonly threadId: string
  readonly runId: string
  /** The operator model as configured when the run started (`models.operator`), with its settings. */
  readonly model: ResolvedModel
  /** The system prompt: the config's, the date, working memory, observations and recalled messages. */
  readonly system: string
  /**
   * The thread's newest messages as stored (UI messages, the shape `useChat` round-trips; a long
   * thread's older ones left out), ending with the owner's message, or with the assistant
   * message this step continues after the owner's decisions (its calls in `approval-responded`).
   */
  readonly history: ReadonlyArray<StoredMessage>
  /**
   * The history as the model takes it (the AI SDK's `ModelMessage`s): messages covered by
   * observations left out, stored attachments no model takes left out, converted with `tools`.
   */
  readonly messages: ReadonlyArray<ModelMessage>
  /**
   * The run's tools (built-ins, MCP servers, plugins) as AI SDK tools keyed by their ids. Each
   * carries its approval policy (`needsApproval(input, { toolCallId, messages })`) and its
   * `execute(input, { toolCallId, messages })`, which holds Aide's bounds (timeouts, output size,
   * sandboxes): call it rather than the tool's source. A call that needs approval and was not
   * approved by the owner is refused there (its promise rejects; the tool never runs).
   */
  readonly tools: ToolSet
  /** The most model steps (each may call tools) this run may take. */
  readonly maxSteps: number
  /** Retries of a failed provider call (429, 5xx…): `ChatOptions.maxRetries`. */
  readonly maxRetries: number
  /**
   * Aborted when the owner stops the run, the run is cut by its bounds (idle timeout, answer
   * size), or the kernel shuts down.
   */
  readonly abortSignal: AbortSignal
  /** The id of a new answer (the `start` chunk's `messageId`); a continued message keeps its own. */
  readonly messageId: string
  /** The `start` chunk's `messageMetadata`: clients read the run id from it to approve or resume. */
  readonly metadata: AssistantMetadata
  /**
   * Tell Aide the provider's error, as thrown: a request refused because of an attachment or a
   * malformed stored part is then retried without it (the step is run again). Optional to call.
   */
  readonly onProviderError: (error: unknown) => void
}

/** What a step reports once its stream has ended; every field optional. */
export interface AgentStepOutcome {
  /** The answer as the step built it; default: the message rebuilt from the chunks Aide relayed. */
  readonly responseMessage?: UIMessage | undefined
  /** The step stopped because `abortSignal` was aborted; default: whether it was. */
  readonly aborted?: boolean | undefined
  /** Token counts, for the run's log line. */
  readonly usage?: Partial<Pick<LanguageModelUsage, "inputTokens" | "outputTokens">> | undefined
  /** Why the step ended (`stop`, `tool-calls`, `length`…), for the run's log line. */
  readonly finishReason?: string | undefined
}

/** A started step: its UI message stream, and what it reports once that has ended. */
export interface AgentStepRun {
  readonly stream: ReadableStream<UIMessageChunk>
  /** Read once, after the stream ended (or was cancelled). */
  readonly outcome?: (() => AgentStepOutcome) | undefined
}

/**
 * One agent step of a chat run: history, system prompt, tools and model in, the AI SDK's UI
 * message stream out. Aide owns everything around it — the thread and its one run at a time,
 * storing the owner's message and the answer (checkpoints, `finish` held until committed),
 * streaming to clients with resume, approvals, memory, titles, bounds — whatever produces the
 * chunks. The default is `AiSdkAgentStep.layer` (the AI SDK's `streamText`); give your own in
 * `Kernel.layer({ agentStep })` to run Mastra, LangGraph or a loop of your own behind Aide.
 *
 * Contract for an implementation:
 * - **The stream** is the AI SDK's UI message stream protocol: `start` first, with `messageId`
 *   and `messageMetadata: metadata` (the continued message's id when `history` ends with an
 *   assistant message), then `start-step`/`finish-step` around each model step, the parts
 *   (`text-*`, `reasoning-*`, `tool-*`), and `finish` last, then close. The answer stored is the
 *   message a client builds from those chunks, unless `outcome` reports one.
 * - **Tools**: run a call through `tools[id].execute` and report it (`tool-input-available`,
 *   then `tool-output-available` or `tool-output-error`); Aide's tools are dynamic (`dynamic: true`).
 * - **Approvals**: a call whose `needsApproval` answers true must not run: send
 *   `tool-input-available` and `tool-approval-request` (an `approvalId` of yours), then end the
 *   stream (`finish-step`, `finish`). Aide stores the message, suspends the run and answers
 *   `POST /api/chat/approve`; once every call is decided the step runs again with `history`
 *   ending in that message, its calls `approval-responded` (`approval.approved`): run the
 *   approved ones (`tool-output-available` for their `toolCallId`), report the denied ones
 *   (`tool-output-denied`), and go on answering in the same message.
 * - **Abort**: when `abortSignal` aborts, stop (the model, the tools) and close or error the
 *   stream soon; what was sent is kept. A stream silent for `idleTimeout` is cut anyway.
 * - **Errors**: fail `run` with `ChatModelError` when the step cannot start; an error before any
 *   content (an `error` chunk, or the stream erroring) fails the request the same way (its
 *   message is the client's). After content, the stream ends with an `error` chunk and the answer
 *   so far is stored, marked `interrupted: "model-error"`.
 * - **Bounds**: the answer limit, the idle timeout and the stop are Aide's, applied to the
 *   stream; the step need not count.
 */
export class AgentStep extends Context.Tag("@aide/kernel/AgentStep")<
  AgentStep,
  {
    readonly run: (input: AgentStepInput) => Effect.Effect<AgentStepRun, ChatModelError>
  }
>() {}
