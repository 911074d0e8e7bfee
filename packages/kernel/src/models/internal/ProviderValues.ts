import type { Connectable, ProviderDefinition, ReadEnv } from "../Providers.js"

/**
 * Where a provider's variables are read: the host's environment, else the owner's connection
 * (`ProviderConnections`). Empty strings count as unset.
 */
export const make = (env: Readonly<Record<string, string | undefined>>) => {
  const trimmed = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim())
  const fromEnv: ReadEnv = (name) => trimmed(env[name])
  const connections = new Map<string, Readonly<Record<string, string>>>()

  const setByEnvironment = (definition: ProviderDefinition) =>
    definition.envVars.some((name) => fromEnv(name) !== undefined)

  // Environment first, per provider: one the host configures ignores its connection whole, so a
  // key from one source is never sent to a base URL from the other.
  const readers = new Map<string, ReadEnv>()
  const readerFor = (definition: ProviderDefinition): ReadEnv => {
    let reader = readers.get(definition.id)
    if (reader === undefined) {
      reader = (name) =>
        setByEnvironment(definition) ? fromEnv(name) : trimmed(connections.get(definition.id)?.[name])
      readers.set(definition.id, reader)
    }
    return reader
  }

  const connect = (id: string, values: Readonly<Record<string, string>> | undefined) => {
    if (values === undefined) connections.delete(id)
    else connections.set(id, { ...values })
  }

  const connectable = (definition: ProviderDefinition): Connectable => ({
    envVars: definition.envVars,
    requiredEnv: definition.requiredEnv,
    setByEnvironment: setByEnvironment(definition),
  })

  return { readerFor, connectable, connect }
}
