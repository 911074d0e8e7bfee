import { Data } from "effect"

/**
 * Options of `Kernel.layer` that cannot make a kernel: something needs the disk and no `dataDir`
 * was given, or `threads` was replaced without a `recallIndex`. Thrown by `Kernel.layer` itself,
 * before anything is built: it is the embedder's mistake, found when the kernel is composed.
 */
export class KernelOptionsError extends Data.TaggedError("KernelOptionsError")<{ readonly message: string }> {}

/** `dataDir`, or the `KernelOptionsError` naming what needed it and the options that avoid it. */
export const requireDataDir = (dataDir: string | undefined, what: string, instead: string): string => {
  if (dataDir !== undefined) return dataDir
  throw new KernelOptionsError({ message: `Kernel.layer: ${what} needs \`dataDir\`; give it, or ${instead}` })
}
