/**
 * @aide/kernel/tools — tools: the Tools service, the ToolRegistry, typed tools, the time tool.
 * The same namespaces as in `@aide/kernel`, without loading the rest of the kernel.
 */
export * as TimeTool from "./tools/TimeTool.js"
export * as ToolRegistry from "./tools/ToolRegistry.js"
export * as Tools from "./tools/Tools.js"
export * as TypedTool from "./tools/TypedTool.js"
