/**
 * @aide/kernel/metrics — the kernel's Effect metrics (KernelMetrics).
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as KernelMetrics from "./metrics/KernelMetrics.js"
