import { execFile } from "node:child_process"
import { promises as fs } from "node:fs"
import * as path from "node:path"

/**
 * The OS-level walls around a plugin process (docs/plugin-sandbox.md "Containment"), built from
 * util-linux programs that exec into the next, so the process the host forks *is* the plugin
 * process's wrapper chain and the fd-3 wire passes through untouched:
 *
 *   setpriv --pdeathsig KILL   dies with Aide, even busy or after kill -9 of the server
 *   prlimit --as=N             an address-space cap: ArrayBuffers count, not just V8's heap
 *   unshare --user --pid --fork --mount-proc --kill-child
 *                              a pid namespace with its own /proc: Aide's process (and its
 *                              /proc/<pid>/environ) is not visible from inside
 *
 * Node cannot call prctl(PR_SET_PDEATHSIG) or setrlimit itself without native code, hence the
 * programs. Each wall is used when its program is there (and, for the namespace, when the kernel
 * lets this user create one); a missing one is reported once in the log and in `walls`.
 */

export interface Walls {
  readonly parentDeath: boolean
  readonly addressSpace: boolean
  readonly pidNamespace: boolean
}

export interface Launch {
  /** What `fork` runs instead of node (the first wrapper), or node itself. */
  readonly execPath: string
  /** The wrappers' arguments, ending with node's path: fork appends node's flags after them. */
  readonly prefix: ReadonlyArray<string>
  readonly walls: Walls
}

/**
 * Node 20 reserves ~0.75–1 GiB of address space before running any code (code range, thread
 * stacks, the heap's reservations; measured with `prlimit --as`: 768 MiB fails to start, 1 GiB
 * starts). A plugin gets that, plus twice its heap limit for the heap and its buffers.
 */
const nodeReserveMb = 2048

const wasmFlag = "--disable-wasm-trap-handler"
/** Node 20.15+ and 22.2+: bounds-checked WebAssembly, without the address-space reservation. */
const wasmWithoutGuards = process.allowedNodeEnvironmentFlags.has(wasmFlag)
export const addressSpaceMb = (memoryMb: number) => nodeReserveMb + 2 * memoryMb

interface Programs {
  readonly setpriv?: string
  readonly prlimit?: string
  readonly unshare?: string
  readonly namespaces: boolean
}

const searchPath = async (name: string): Promise<string | undefined> => {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
  for (const dir of dirs) {
    if (dir === "") continue
    const file = path.join(dir, name)
    const ok = await fs.access(file, fs.constants.X_OK).then(
      () => true,
      () => false,
    )
    if (ok) return file
  }
  return undefined
}

const unshareArgs = ["--user", "--pid", "--fork", "--mount-proc", "--kill-child"]

/** Whether this kernel (and container) lets this user make a user + pid namespace. */
const namespacesWork = (unshare: string) =>
  new Promise<boolean>((resolve) => {
    execFile(unshare, [...unshareArgs, "--", "/bin/sh", "-c", "exit 0"], { timeout: 5_000 }, (error) =>
      resolve(error === null),
    )
  })

let programs: Promise<Programs> | undefined

const findPrograms = (): Promise<Programs> => {
  programs ??= (async () => {
    if (process.platform !== "linux") return { namespaces: false }
    const [setpriv, prlimit, unshare] = await Promise.all(["setpriv", "prlimit", "unshare"].map(searchPath))
    const namespaces = unshare !== undefined && (await namespacesWork(unshare))
    return {
      ...(setpriv === undefined ? {} : { setpriv }),
      ...(prlimit === undefined ? {} : { prlimit }),
      ...(unshare === undefined ? {} : { unshare }),
      namespaces,
    }
  })()
  return programs
}

export interface LaunchOptions {
  readonly memoryMb: number
  /** Default `addressSpaceMb(memoryMb)`; `null` for no cap. */
  readonly addressSpaceMb?: number | null | undefined
}

/** How to start one plugin process: the wrapper chain ending in node. */
export const launch = async (options: LaunchOptions): Promise<Launch> => {
  const found = await findPrograms()
  const chain: Array<string> = []
  if (found.setpriv !== undefined) chain.push(found.setpriv, "--pdeathsig", "KILL", "--")
  const cap = options.addressSpaceMb === undefined ? addressSpaceMb(options.memoryMb) : options.addressSpaceMb
  const capped = found.prlimit !== undefined && cap !== null && wasmWithoutGuards
  if (capped) chain.push(found.prlimit!, `--as=${cap * 1024 * 1024}`, "--")
  if (found.namespaces) chain.push(found.unshare!, ...unshareArgs, "--")
  chain.push(process.execPath)
  // V8 guards each WebAssembly memory with ~10 GiB of reserved address space, which no cap
  // allows: without this flag Node's own fetch (undici's llhttp is WebAssembly) fails.
  if (capped) chain.push(wasmFlag)
  const [execPath, ...prefix] = chain
  return {
    execPath: execPath!,
    prefix,
    walls: { parentDeath: found.setpriv !== undefined, addressSpace: capped, pidNamespace: found.namespaces },
  }
}

/** The walls missing here, in words for the log ("" when none is). */
export const missingWalls = (walls: Walls): string =>
  [
    walls.parentDeath ? undefined : "death with Aide (setpriv --pdeathsig, util-linux)",
    walls.addressSpace ? undefined : "the address-space cap (prlimit, util-linux)",
    walls.pidNamespace ? undefined : "the pid namespace hiding Aide's process (unshare --user --pid)",
  ]
    .filter((wall) => wall !== undefined)
    .join(", ")
