import { ActiveStreams, Memory, Threads } from "@aide/kernel"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AideApi } from "../api/AideApi.js"
import { NotFound } from "../api/ApiErrors.js"
import { defaultPerPage } from "../api/ThreadsApi.js"
import { dieOnStorageError } from "../http/StorageDefects.js"

/** SPEC "Errors": the exact messages. */
const threadNotFound = () => new NotFound({ error: "Thread not found" })
const messageNotFound = () => new NotFound({ error: "Message not found in thread" })

export const layer = HttpApiBuilder.group(AideApi, "threads", (handlers) =>
  Effect.gen(function* () {
    const threads = yield* Threads.Threads
    const activeStreams = yield* ActiveStreams.ActiveStreams
    const memory = yield* Memory.Memory
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.all([
          threads.list({ page: urlParams.page ?? 0, perPage: urlParams.perPage ?? defaultPerPage }),
          activeStreams.threadIds,
        ]).pipe(
          Effect.map(([page, activeStreamIds]) => ({ ...page, activeStreamIds })),
          dieOnStorageError,
        ),
      )
      .handle("detail", ({ path }) =>
        threads.detail(path.id).pipe(Effect.catchTag("ThreadNotFound", threadNotFound), dieOnStorageError),
      )
      .handle("fork", ({ path, payload }) =>
        threads.fork(path.id, payload.messageId).pipe(
          Effect.map(({ thread, clonedMessageCount }) => ({
            thread: { id: thread.id, createdAt: thread.createdAt, updatedAt: thread.updatedAt },
            clonedMessageCount,
          })),
          Effect.catchTags({ ThreadNotFound: threadNotFound, MessageNotFound: messageNotFound }),
          dieOnStorageError,
        ),
      )
      .handle("rename", ({ path, payload }) =>
        threads.setTitle(path.id, payload.title).pipe(
          Effect.map((thread) => ({
            id: thread.id,
            title: thread.title,
            createdAt: thread.createdAt,
            updatedAt: thread.updatedAt,
          })),
          Effect.catchTag("ThreadNotFound", threadNotFound),
          dieOnStorageError,
        ),
      )
      .handle("delete", ({ path }) =>
        threads.delete(path.id).pipe(
          // Memory forgets what came only from the thread; the deletion stands if that fails.
          Effect.zipRight(
            memory
              .forgetThreads([path.id])
              .pipe(Effect.catchAll((error) => Effect.logWarning("memory could not forget a deleted thread", error))),
          ),
          Effect.as({ success: true as const }),
          Effect.catchTag("ThreadNotFound", threadNotFound),
          dieOnStorageError,
        ),
      )
  }),
)
