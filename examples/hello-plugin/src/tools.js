// @ts-check
// A tool entry: its default export is a tool or an array of tools. It runs in the compartment
// sandbox, so only what the manifest grants exists here: `Date` (permissions.time), no `process`,
// no `require`, no network. Plain objects work; `@aide/plugin` only adds types. (SES refuses
// any source text that looks like a dynamic import, comments included: import types with the
// JSDoc `@import` tag.)
/** @import { ToolDefinition } from "@aide/plugin" */

/** @type {ToolDefinition<{ name: string }, { greeting: string; at: string }, { greeting?: string }>} */
const greet = {
  id: "greet",
  name: "Greet",
  description: "Greets someone by name, with the time of the greeting",
  parameters: {
    type: "object",
    properties: { name: { type: "string", minLength: 1, maxLength: 100, description: "Who to greet" } },
    required: ["name"],
    additionalProperties: false,
  },
  execute: ({ name }, context) => {
    context.log("greeting", { name })
    return { greeting: `${context.config.greeting ?? "Hello"}, ${name}!`, at: new Date().toISOString() }
  },
}

export default [greet]
