import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from "ai"

/** `ai`'s `AbstractChat` with plain in-memory state: what `useChat` drives, without React. */
export class NodeChat<M extends UIMessage = UIMessage> extends AbstractChat<M> {
  constructor(init: ChatInit<M>) {
    const messages: Array<M> = [...(init.messages ?? [])]
    const state: ChatState<M> = {
      status: "ready" as ChatStatus,
      error: undefined,
      messages,
      pushMessage: (message) => {
        state.messages = [...state.messages, message]
      },
      popMessage: () => {
        state.messages = state.messages.slice(0, -1)
      },
      replaceMessage: (index, message) => {
        state.messages = state.messages.map((existing, i) => (i === index ? message : existing))
      },
      snapshot: (thing) => structuredClone(thing),
    }
    super({ ...init, state })
  }
}
