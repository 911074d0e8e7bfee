import { buildOnce } from "./cli.js"

/** One build of the CLI before the test files run in parallel (they would race to build it). */
export default function setup() {
  buildOnce()
}
