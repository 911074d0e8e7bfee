import type { Provider } from "@aide/client"

/** Which variables a provider needs, in words: "set OPENAI_API_KEY". */
export const setupHint = (provider: Provider) =>
  provider.envVars.length === 0 ? "start its server" : `set ${provider.envVars.join(" or ")}`

/** The configured providers (in the server's order) with their models matching `query`; the others apart. */
export const groupModels = (providers: ReadonlyArray<Provider>, query: string) => {
  const needle = query.trim().toLowerCase()
  const matches = (provider: Provider, model: string) =>
    needle === "" || `${provider.name} ${provider.id} ${model}`.toLowerCase().includes(needle)
  const ready = providers
    .filter((provider) => provider.configured)
    .map((provider) => ({ provider, models: provider.models.filter((model) => matches(provider, model)) }))
    .filter((group) => group.models.length > 0)
  const unready = providers.filter(
    (provider) =>
      !provider.configured && (needle === "" || `${provider.name} ${provider.id}`.toLowerCase().includes(needle)),
  )
  return { ready, unready }
}
