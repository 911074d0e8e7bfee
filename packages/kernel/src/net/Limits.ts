import { EgressBodyTooLarge } from "./EgressErrors.js"

/** The limits a broker puts around each exchange: concurrent requests, body size. */

/** A counting semaphore of `permits`; `Infinity` never waits. A waiter whose signal aborts leaves. */
export const semaphore = (permits: number) => {
  let free = permits
  const waiting: Array<() => void> = []
  return {
    acquire: (signal?: AbortSignal): Promise<void> => {
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (free > 0) {
        free--
        return Promise.resolve()
      }
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          waiting.splice(waiting.indexOf(granted), 1)
          reject(signal?.reason)
        }
        const granted = () => {
          signal?.removeEventListener("abort", onAbort)
          resolve()
        }
        waiting.push(granted)
        signal?.addEventListener("abort", onAbort, { once: true })
      })
    },
    release: (): void => {
      const next = waiting.shift()
      if (next !== undefined) next()
      else free++
    },
  }
}

/**
 * `body` cut with an `EgressBodyTooLarge` error as soon as more than `maxBytes` arrived, read
 * chunk by chunk as the consumer pulls (nothing is buffered here), and `done` called once when
 * it ends however it ends: read to the end, failed, cut or cancelled.
 */
export const limitBody = (
  body: ReadableStream<Uint8Array>,
  url: string,
  maxBytes: number,
  done: () => void,
): ReadableStream<Uint8Array> => {
  const reader = body.getReader()
  let received = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read()
        if (chunk.done) {
          done()
          return controller.close()
        }
        received += chunk.value.byteLength
        if (received > maxBytes) {
          const error = new EgressBodyTooLarge(url, maxBytes)
          // Cancelling closes the connection: the rest of the body is never received.
          await reader.cancel(error).catch(() => undefined)
          done()
          return controller.error(error)
        }
        controller.enqueue(chunk.value)
      } catch (error) {
        done()
        controller.error(error)
      }
    },
    async cancel(reason) {
      done()
      await reader.cancel(reason).catch(() => undefined)
    },
  })
}
