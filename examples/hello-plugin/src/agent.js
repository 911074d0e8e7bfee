// @ts-check
// An agent entry: data only. Aide offers it to the operator model as a delegate; it runs with
// these instructions and the tools the manifest lists in `useTools`.

/** @import { AgentDefinition } from "@aide/plugin" */

/** @type {AgentDefinition} */
export default {
  id: "greeter",
  name: "Greeter",
  description: "Greets the people it is told about, warmly",
  instructions: "You greet every person named in the task with the greet tool, then say who you greeted.",
}
