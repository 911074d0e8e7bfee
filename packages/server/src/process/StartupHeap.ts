import * as v8 from "node:v8"

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
  return () => v8.setFlagsFromString("--semi-space-growth-factor=2")
}
