#!/usr/bin/env node
// Nothing is evaluated before the young generation is held but node:v8: the rest of the server
// (one chunk of the bundle, loaded by `import()`) then starts with it small (StartupHeap.ts).
import { holdYoungGeneration } from "./process/StartupHeap.js"

const release = holdYoungGeneration()
const { run } = await import("./process/ServerProcess.js")
run(release)
