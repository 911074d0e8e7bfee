import { type AideClient, aideChatTransport } from "@aide/client"
import { lastAssistantMessageIsCompleteWithApprovalResponses } from "ai"

/**
 * What `useChat` needs to talk to Aide: the transport, and sending approvals as soon as every
 * pending tool call of the answer is decided. `id` is the thread (a new one when unknown).
 */
export const chatOptions = (client: AideClient, threadId: string) => ({
  id: threadId,
  transport: aideChatTransport(client),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
})
