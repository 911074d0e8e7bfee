import { Clock, Effect, Layer } from "effect"
import { Ids } from "../ids/Ids.js"
import { boundedParts } from "../tools/BoundedValue.js"
import {
  type BranchRef,
  MessageNotFound,
  type StoredMessage,
  ThreadNotFound,
  type ThreadPage,
  type ThreadRecord,
  type ThreadSummary,
  Threads,
} from "./Threads.js"

interface MemoryThread {
  record: ThreadRecord
  readonly messages: Array<StoredMessage>
  /** Roots only: the latest `updatedAt` of the family, what the list is ordered by. */
  familyUpdatedAt: number
}

const toRef = (record: ThreadRecord): BranchRef =>
  record.title === null ? { id: record.id } : { id: record.id, title: record.title }

/**
 * `Threads` in this process's memory: nothing survives a restart. For tests, demos and embedders
 * keeping conversations elsewhere. Same semantics as `SqlThreads` (the threads suite runs on
 * both): messages keep their ids in forks, the list is ordered by family activity, deleting a
 * branch deletes its branches. Messages are stored as given (copy them if you mutate them).
 */
export const make = Effect.gen(function* () {
  const ids = yield* Ids
  const threads = new Map<string, MemoryThread>()
  const now = Clock.currentTimeMillis

  const require = (id: string) => {
    const thread = threads.get(id)
    return thread === undefined ? Effect.fail(new ThreadNotFound({ threadId: id })) : Effect.succeed(thread)
  }
  const touchFamily = (rootId: string, at: number) => {
    const root = threads.get(rootId)
    if (root !== undefined && root.familyUpdatedAt < at) root.familyUpdatedAt = at
  }
  const members = (rootId: string) => [...threads.values()].filter((thread) => thread.record.rootId === rootId)
  const byCreation = (a: MemoryThread, b: MemoryThread) =>
    a.record.createdAt.getTime() - b.record.createdAt.getTime() || (a.record.id < b.record.id ? -1 : 1)

  const ensure = (id: string) =>
    Effect.map(now, (at) => {
      const existing = threads.get(id)
      if (existing !== undefined) return { thread: existing.record, created: false }
      const record: ThreadRecord = {
        id,
        rootId: id,
        parentId: null,
        forkMessageId: null,
        forkPointIndex: null,
        title: null,
        createdAt: new Date(at),
        updatedAt: new Date(at),
      }
      threads.set(id, { record, messages: [], familyUpdatedAt: at })
      return { thread: record, created: true }
    })

  const saveMessage = (threadId: string, given: StoredMessage) =>
    Effect.flatMap(Effect.zip(require(threadId), now), ([thread, at]) =>
      Effect.sync(() => {
        // As SqlThreads: a part nested too deeply would fail every later model request.
        const parts = boundedParts(given.parts)
        const message = parts === given.parts ? given : { ...given, parts }
        const index = thread.messages.findIndex((existing) => existing.id === message.id)
        if (index === -1) thread.messages.push(message)
        else thread.messages[index] = message
        thread.record = { ...thread.record, updatedAt: new Date(at) }
        touchFamily(thread.record.rootId, at)
      }),
    )

  const setTitle = (id: string, title: string | null) =>
    Effect.map(require(id), (thread) => {
      thread.record = { ...thread.record, title }
      return thread.record
    })

  const list = (options: { readonly page: number; readonly perPage: number | false }) =>
    Effect.sync((): ThreadPage => {
      const { perPage } = options
      const page = perPage === false ? 0 : options.page
      const roots = [...threads.values()]
        .filter((thread) => thread.record.parentId === null)
        .sort((a, b) => b.familyUpdatedAt - a.familyUpdatedAt || (a.record.id < b.record.id ? 1 : -1))
      const window = perPage === false ? roots : roots.slice(page * perPage, (page + 1) * perPage)
      const summaries = window.map((root): ThreadSummary => {
        const family = members(root.record.id).sort((a, b) =>
          a.record.parentId === null ? -1 : b.record.parentId === null ? 1 : byCreation(a, b),
        )
        // Ties go to the thread created last, as in `SqlThreads`.
        let active = family[0]!
        for (const member of family) {
          if (member.record.updatedAt.getTime() >= active.record.updatedAt.getTime()) active = member
        }
        return {
          id: root.record.id,
          title: root.record.title,
          createdAt: root.record.createdAt,
          updatedAt: new Date(root.familyUpdatedAt),
          activeThreadId: active.record.id,
          threadIds: family.map((member) => member.record.id),
        }
      })
      return {
        threads: summaries,
        total: roots.length,
        page,
        perPage,
        hasMore: perPage !== false && (page + 1) * perPage < roots.length,
      }
    })

  const detail = (id: string) =>
    Effect.map(require(id), (thread) => {
      const children = [...threads.values()].filter((other) => other.record.parentId === id).sort(byCreation)
      const forks = new Map<string, Array<BranchRef>>()
      for (const child of children) {
        const key = child.record.forkMessageId!
        forks.set(key, [...(forks.get(key) ?? []), toRef(child.record)])
      }
      const { parentId, forkMessageId } = thread.record
      const siblings =
        parentId === null
          ? []
          : [...threads.values()]
              .filter(
                (other) =>
                  other.record.parentId === parentId &&
                  other.record.forkMessageId === forkMessageId &&
                  other.record.id !== id,
              )
              .sort(byCreation)
      const { record } = thread
      return {
        thread: { id: record.id, title: record.title, createdAt: record.createdAt, updatedAt: record.updatedAt },
        messages: [...thread.messages],
        forks: Object.fromEntries(forks),
        forkInfo:
          parentId === null
            ? null
            : {
                sourceThreadId: parentId,
                forkPointIndex: record.forkPointIndex ?? 0,
                siblings: siblings.map((sibling) => toRef(sibling.record)),
              },
      }
    })

  const fork = (id: string, messageId: string) =>
    Effect.gen(function* () {
      const source = yield* require(id)
      const index = source.messages.findIndex((message) => message.id === messageId)
      if (index === -1) return yield* new MessageNotFound({ threadId: id, messageId })
      const branchId = yield* ids.uuid
      const at = yield* now
      const record: ThreadRecord = {
        id: branchId,
        rootId: source.record.rootId,
        parentId: id,
        forkMessageId: messageId,
        forkPointIndex: index,
        title: null,
        createdAt: new Date(at),
        updatedAt: new Date(at),
      }
      threads.set(branchId, { record, messages: source.messages.slice(0, index), familyUpdatedAt: at })
      touchFamily(source.record.rootId, at)
      return { thread: record, clonedMessageCount: index }
    })

  const delete_ = (id: string) =>
    Effect.map(require(id), (thread) => {
      const doomed = [id]
      for (let i = 0; i < doomed.length; i++) {
        for (const other of threads.values()) if (other.record.parentId === doomed[i]) doomed.push(other.record.id)
      }
      for (const gone of doomed) threads.delete(gone)
      const root = threads.get(thread.record.rootId)
      // What is left of the family decides its time again.
      if (root !== undefined) {
        root.familyUpdatedAt = Math.max(...members(root.record.id).map((member) => member.record.updatedAt.getTime()))
      }
    })

  return Threads.of({
    ensure,
    get: (id) => Effect.map(require(id), (thread) => thread.record),
    messages: (id) => Effect.map(require(id), (thread) => [...thread.messages]),
    tail: (id, last) =>
      Effect.map(require(id), (thread) => {
        const messages = thread.messages.slice(-Math.max(1, Math.floor(last)))
        return { messages, before: thread.messages.length - messages.length }
      }),
    holding: (id, messageIds) =>
      Effect.map(require(id), (thread): ReadonlySet<string> => {
        const wanted = new Set(messageIds)
        return new Set(thread.messages.filter((message) => wanted.has(message.id)).map((message) => message.id))
      }),
    saveMessage,
    setTitle,
    list,
    detail,
    fork,
    delete: delete_,
  })
})

/** `Threads` in memory; branch ids come from `Ids`. */
export const layer: Layer.Layer<Threads, never, Ids> = Layer.effect(Threads, make)
