/**
 * `aide.plugin.json` as a type (the JSON Schema is docs/plugin-manifest.schema.json of the Aide
 * repository; the loader checks manifests against it, and a test keeps this type in step).
 */

export type ConfigFieldType = "text" | "number" | "password" | "enum" | "boolean"

/** One field of a plugin's settings form (`plugins.<id>.<key>` in the Aide config). */
export interface ConfigFieldDescriptor {
  readonly key: string
  readonly label: string
  readonly type: ConfigFieldType
  readonly required?: boolean
  readonly placeholder?: string
  readonly description?: string
  /** Required for `enum`. */
  readonly options?: ReadonlyArray<{ readonly value: string; readonly label?: string }>
}

/** What a sandboxed (`compartment`) tool may use; nothing that is not declared. */
export interface Permissions {
  readonly time?: boolean
  readonly random?: boolean
  /** Names of host environment variables the tool receives. */
  readonly env?: ReadonlyArray<string>
  /**
   * Hosts the brokered `fetch` (and a channel's `webSocket` and `connect`) may reach:
   * `api.example.com`, `*.example.com` (subdomains), `imap.example.com:993` (that port only;
   * `connect` needs a declared port), or `config:<key>`: the host (and port) the owner enters in
   * the setting `<key>` (a self-hosted server's URL).
   */
  readonly network?: ReadonlyArray<string>
  /** Read-only path prefixes. */
  readonly fs?: ReadonlyArray<string>
}

/**
 * A tool or an agent as the manifest declares it: shown by `GET /api/plugins` before the plugin
 * is enabled (its code does not run until then), and checked against its entry's module once
 * loaded (a difference is an error alert on the plugin).
 */
export interface Declared {
  /** As in the module: letters, digits, `.`, `_`, `-` (no colons). */
  readonly id: string
  readonly name: string
  readonly description?: string
}

export interface ToolEntry {
  /** A module inside the plugin folder whose default export is a tool or an array of tools. */
  readonly entry: string
  readonly sandbox?: "compartment" | "host"
  readonly permissions?: Permissions
  readonly requireApproval?: boolean
  /** The tools its module exports. */
  readonly tools?: ReadonlyArray<Declared>
}

export interface AgentEntry {
  readonly entry: string
  readonly useTools?: ReadonlyArray<string>
  readonly model?: { readonly provider: string; readonly model: string }
  /** The agents its module exports. */
  readonly agents?: ReadonlyArray<Declared>
}

export interface ChannelEntry {
  readonly entry: string
  /**
   * `host` (default: full trust, kept for the channels written before) or `compartment`: the
   * channel runs in SES and reaches its platform only through `context.fetch`, `webSocket` and
   * `connect` (docs/plugin-sandbox.md).
   */
  readonly sandbox?: "compartment" | "host"
  /** Its `network` is the hosts of the channel's `context.fetch`, `webSocket` and `connect`. */
  readonly permissions?: Permissions
}

export interface PluginManifest {
  readonly manifestVersion: 1
  /** Lower-case letters, digits, `.`, `_`, `-`; no colons (tools become `<id>:<toolId>`). */
  readonly id: string
  readonly name: string
  readonly description?: string | null
  readonly author?: string | null
  readonly icon?: string | null
  readonly version?: string | null
  readonly homepage?: string | null
  readonly repository?: string | null
  /** An SPDX identifier. */
  readonly license?: string | null
  /** semver range of the Aide versions supported (enforced by the loader). */
  readonly aide?: string
  readonly envVars?: ReadonlyArray<{ readonly name: string; readonly required?: boolean }>
  readonly configFields?: ReadonlyArray<ConfigFieldDescriptor>
  readonly provides: {
    readonly tools?: ReadonlyArray<ToolEntry>
    readonly agents?: ReadonlyArray<AgentEntry>
    readonly channels?: ReadonlyArray<ChannelEntry>
  }
}
