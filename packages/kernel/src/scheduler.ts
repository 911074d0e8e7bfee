/**
 * @aide/kernel/scheduler — scheduled tasks and heartbeat: the Scheduler service, ManualScheduler, the run ledger and its Layers.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as DueRunner from "./scheduler/DueRunner.js"
export * as ManualScheduler from "./scheduler/ManualScheduler.js"
export * as MemoryRunLedger from "./scheduler/MemoryRunLedger.js"
export * as RunLedger from "./scheduler/RunLedger.js"
export * as ScheduleModel from "./scheduler/ScheduleModel.js"
export * as Scheduler from "./scheduler/Scheduler.js"
export * as SqlRunLedger from "./scheduler/SqlRunLedger.js"
