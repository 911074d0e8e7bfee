import * as v8 from "node:v8"
import * as vm from "node:vm"

/**
 * V8 grows the young generation (two semi-spaces, 1 MiB each at first) whenever more than its
 * size survived a scavenge since it last grew, up to 16 MiB each, and shrinks it only after a
 * garbage collection while the allocation rate is low — which an idle server never runs. Start-up
 * (modules, layers, migrations: ~25 MiB that all survive) thus leaves 32 MiB of semi-spaces
 * committed and resident for good, a quarter of an idle server's memory (issue 38). They stay at
 * their initial size while the server starts; once it listens they may grow again as V8 decides,
 * so serving keeps V8's usual young generation and its throughput.
 *
 * The growth factor is read by V8 each time it grows the young generation, so setting it at run
 * time takes effect (Node leaves flags writable for `v8.setFlagsFromString`). Only on the V8
 * it was checked on (11, Node 20): on another, an unknown flag would print an error at every start.
 */
export const holdYoungGeneration = (): (() => void) => {
  if (!process.versions.v8.startsWith("11.")) return () => {}
  v8.setFlagsFromString("--semi-space-growth-factor=1")
  return () => {
    collectStartupGarbage()
    v8.setFlagsFromString("--semi-space-growth-factor=2")
  }
}

/**
 * Start-up leaves ~7 MiB of garbage in the old generation (promoted by scavenges: start-up runs no
 * full GC after its modules evaluate) and the pages under it stay resident until V8's memory
 * reducer runs, 8–25 s after start. Two full collections while `--optimize-for-size` is on do what
 * it does at once (~45 ms, once, as the server starts listening): the first frees the objects, the
 * second compacts and returns the emptied pages (−7 MiB RSS). The young generation is still held
 * small then, so the collections do not grow it. `gc` is taken from a new context created while
 * `--expose-gc` is on; both flags are off again afterwards.
 */
const collectStartupGarbage = () => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as () => void
  v8.setFlagsFromString("--no-expose-gc")
  v8.setFlagsFromString("--optimize-for-size")
  try {
    gc()
    gc()
  } finally {
    v8.setFlagsFromString("--no-optimize-for-size")
  }
}
