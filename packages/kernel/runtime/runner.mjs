// The plugin runner's work once SES is locked down (or, for host trust, at once): the wire's
// methods over the plugin's entries. Started by plugin-runner.mjs (from the ES module sources)
// or by bundle-entry.cjs (the bundled runner, through start.cjs for a compartment;
// docs/plugin-sandbox.md, "Start time").

import { promises as fs } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { brokeredFetch, compartmentGlobals } from "./endowments.mjs"
import { loadAgents, loadChannels, loadTools } from "./entries.mjs"
import { importPackage } from "./importer.mjs"
import { inputChecker } from "./input-check.mjs"
import { loadFailure, moduleFile, readRecord, recordKey, resolveSpecifier, within } from "./modules.mjs"
import { connectOf, socketEvent, webSocketOf } from "./sockets.mjs"
import { errorMessage, log, outputTooLarge, request, serve, setMessageLimit } from "./wire.mjs"

/**
 * Serves the host's requests. `trust` "compartment" expects `lockdown()` done; `modulesDir` is
 * the plugin's precompiled modules folder, when the host made one.
 */
export const run = ({ trust, modulesDir }) => {
  const state = {
    tools: new Map(),
    checks: new Map(),
    channels: new Map(),
    env: {},
    config: {},
    permissions: {},
    outputBytes: 1024 * 1024,
  }

  /**
   * A module's source for SES: its precompiled record from `cacheDir` (precompile.mjs wrote it when
   * the plugin was enabled), else compiled here, loading the transformer (Babel) only then.
   */
  let ModuleSource
  const moduleSource = async (cacheDir, url, text) => {
    if (cacheDir !== undefined) {
      const record = await readRecord(cacheDir, recordKey(url, text))
      if (record?.error !== undefined) throw new Error(record.error)
      if (record !== undefined) return record
    }
    ModuleSource ??= (await importPackage("@endo/module-source")).ModuleSource
    return new ModuleSource(text, url)
  }

  /** How entry modules load: each in a compartment of its own, or with the platform's `import()`. */
  const loader = async (directory, globals, cacheDir) => {
    // Already a real path (the host resolved it); not read again: a compartment process may read
    // the folder's files but not the folder as such (RunnerPaths/FsGrants: no symlink is granted).
    const root = directory
    if (trust === "host") return (file) => import(pathToFileURL(file).href).then((ns) => ns.default)
    return async (file) =>
      (await compartmentFor(root, globals, cacheDir).import(pathToFileURL(file).href)).namespace.default
  }

  /** One compartment per entry module: entries share nothing but hardened endowments. */
  const compartmentFor = (root, globals, cacheDir) =>
    new Compartment({
      __options__: true,
      globals,
      // Only the plugin's own files and the vetted SDK: no builtins, no packages, nothing outside its folder.
      resolveHook: resolveSpecifier,
      importHook: async (specifier) => {
        const file = await moduleFile(root, specifier)
        const url = pathToFileURL(file).href
        return { source: await moduleSource(cacheDir, url, await fs.readFile(file, "utf8")) }
      },
    })

  const toolContext = (signal) => {
    const context = {
      env: state.env,
      config: state.config,
      signal,
      log: (message, data) => log("info", message, data),
      ...(state.fetch === undefined ? {} : { fetch: state.fetch }),
    }
    // Shallow: the signal must stay mutable for its own abort().
    return Object.freeze(context)
  }

  // A channel's network, brokered by the host for both trusts (docs/plugin-sandbox.md): its
  // `fetch` even when the plugin declares no network (the host then refuses every call).
  let channelFetch
  const channelFetchOnce = () => {
    channelFetch ??= hardened(brokeredFetch())
    return channelFetch
  }
  const hardened = (value) => (globalThis.harden ?? Object.freeze)(value)
  const channelContext = (channelId, signal) =>
    Object.freeze({
      env: state.env,
      config: state.config,
      signal,
      log: (message, data) => log("info", message, data),
      fetch: state.fetch ?? channelFetchOnce(),
      webSocket: hardened(webSocketOf(signal)),
      connect: hardened(connectOf(signal)),
      receive: (message) => request("channel.receive", { channelId, message }, signal).then(() => undefined),
      answerApproval: (answer) =>
        request("channel.answerApproval", { channelId, ...answer }, signal).then(() => undefined),
    })

  const tooLarge = outputTooLarge

  /** The JSON of `value`, refused past `limit` bytes without building a huge string first. */
  const boundedJson = (value, limit) => {
    let seen = 0
    const json = JSON.stringify(value ?? null, (key, item) => {
      seen += key.length + (typeof item === "string" ? item.length : 0)
      if (seen > limit) throw tooLarge(`output too large: more than ${limit} bytes`)
      return item
    })
    const bytes = Buffer.byteLength(json)
    if (bytes > limit) throw tooLarge(`output too large: ${bytes} bytes, more than ${limit} bytes`)
    return JSON.parse(json)
  }

  const channel = (id) => {
    const found = state.channels.get(id)
    if (found === undefined) throw new Error(`unknown channel ${id}`)
    return found
  }

  serve({
    init: async (params) => {
      const freeze = globalThis.harden ?? Object.freeze
      // Exactly what the host passed: the declared variables that are set (fork adds its own).
      state.env = freeze(
        Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("NODE_CHANNEL_"))),
      )
      state.config = freeze(structuredClone(params.config ?? {}))
      state.permissions = params.permissions ?? {}
      state.outputBytes = params.limits?.outputBytes ?? state.outputBytes
      setMessageLimit(params.limits?.messageBytes)
      if ((state.permissions.network ?? []).length > 0) state.fetch = freeze(brokeredFetch())
      const globals = trust === "compartment" ? await compartmentGlobals(state.permissions, state.fetch) : {}
      const load = await loader(params.directory, globals, modulesDir)
      const alerts = []
      const resolve = async (entry) => {
        const file = path.resolve(params.directory, entry)
        if (!within(params.directory, await fs.realpath(file).catch(() => file))) {
          throw new Error("the entry is outside the plugin folder")
        }
        return load(file)
      }
      const root = params.directory // already a real path (the host resolved it)
      const failed = (entry, error) =>
        alerts.push({ level: "error", message: `${entry}: ${loadFailure(errorMessage(error), root)}` })
      const tools = await loadTools(params.entries?.tools ?? [], resolve, failed, alerts)
      const agents = await loadAgents(params.entries?.agents ?? [], resolve, failed, alerts)
      const channels = await loadChannels(params.entries?.channels ?? [], resolve, failed, alerts, {
        config: state.config,
        env: state.env,
      })
      state.tools = new Map(tools.map((tool) => [tool.id, tool.definition]))
      state.checks = new Map(tools.map((tool) => [tool.id, inputChecker(tool.description.parameters)]))
      state.channels = new Map(channels.map((found) => [found.id, found.definition]))
      return {
        tools: tools.map((tool) => tool.description),
        agents,
        channels: channels.map((found) => found.description),
        alerts,
      }
    },
    "tool.call": async ({ toolId, input }, signal) => {
      const tool = state.tools.get(toolId)
      if (tool === undefined) throw new Error(`unknown tool ${toolId}`)
      const problems = (await state.checks.get(toolId)?.(input)) ?? []
      if (problems.length > 0) throw new Error(`invalid input: ${problems.join("; ")}`)
      return boundedJson(await tool.execute(input, toolContext(signal)), state.outputBytes)
    },
    "socket.event": socketEvent,
    "channel.start": ({ channelId }, signal) => {
      const found = channel(channelId)
      if (found.realtime === undefined) throw new Error(`channel ${channelId} has no realtime connection`)
      return found.realtime.start(channelContext(channelId, signal)).then(() => null)
    },
    "channel.webhook": async ({ channelId, request: incoming }, signal) => {
      const found = channel(channelId)
      if (found.webhook === undefined) throw new Error(`channel ${channelId} has no webhook`)
      return boundedJson(
        (await found.webhook.handle(incoming, channelContext(channelId, signal))) ?? null,
        state.outputBytes,
      )
    },
    "channel.send": async ({ channelId, message }, signal) => {
      const found = channel(channelId)
      if (found.send === undefined) throw new Error(`channel ${channelId} cannot send`)
      await found.send(message, channelContext(channelId, signal))
      return null
    },
    "channel.notify": async ({ channelId, notification }, signal) => {
      const found = channel(channelId)
      if (found.notify === undefined) throw new Error(`channel ${channelId} cannot notify`)
      await found.notify(notification, channelContext(channelId, signal))
      return null
    },
  })
}
