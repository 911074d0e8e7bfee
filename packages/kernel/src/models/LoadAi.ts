/**
 * The AI SDK (with zod, ~0.7 MB) is imported on the first model call, not at every server start:
 * it would otherwise cost ~10% of the start time and several MiB of memory in every process.
 */
export const loadAi = (): Promise<typeof import("ai")> => import("ai")
