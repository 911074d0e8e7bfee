// Entry modules' default exports, checked and described for the host's `init` answer. One entry
// that fails to load gives an error alert; the others still load.

const isText = (value) => typeof value === "string" && value.length > 0
const plain = (value) => value !== null && typeof value === "object"

const each = async (entries, resolve, failed, take) => {
  for (const entry of entries) {
    try {
      await take(entry, await resolve(entry))
    } catch (error) {
      failed(entry, error)
    }
  }
}

export const loadTools = async (entries, resolve, failed, alerts) => {
  const tools = []
  await each(entries, resolve, failed, (entry, exported) => {
    const list = Array.isArray(exported) ? exported : [exported]
    for (const tool of list) {
      if (!plain(tool) || !isText(tool.id) || typeof tool.execute !== "function") {
        throw new Error(
          "the default export must be a tool { id, name, description, parameters, execute } or an array of tools",
        )
      }
      if (tools.some((known) => known.id === tool.id)) {
        alerts.push({ level: "warning", message: `${entry}: tool id ${tool.id} is used twice; the first one is kept` })
        continue
      }
      const description = {
        entry,
        id: tool.id,
        name: isText(tool.name) ? tool.name : tool.id,
        description: typeof tool.description === "string" ? tool.description : "",
        parameters: plain(tool.parameters) ? JSON.parse(JSON.stringify(tool.parameters)) : { type: "object" },
      }
      tools.push({ id: tool.id, definition: tool, description })
    }
  })
  return tools
}

/** Agents are data: only their fields cross, never a function. */
export const loadAgents = async (entries, resolve, failed) => {
  const agents = []
  await each(entries, resolve, failed, (entry, exported) => {
    for (const agent of Array.isArray(exported) ? exported : [exported]) {
      if (!plain(agent) || !isText(agent.id) || !isText(agent.name) || typeof agent.instructions !== "string") {
        throw new Error(
          "the default export must be an agent { id, name, description, instructions } or an array of agents",
        )
      }
      agents.push({
        entry,
        id: agent.id,
        name: agent.name,
        description: typeof agent.description === "string" ? agent.description : "",
        instructions: agent.instructions,
        ...(plain(agent.model)
          ? { model: { provider: String(agent.model.provider), model: String(agent.model.model) } }
          : {}),
        ...(Array.isArray(agent.useTools) ? { useTools: agent.useTools.map(String) } : {}),
      })
    }
  })
  return agents
}

export const loadChannels = async (entries, resolve, failed, alerts, setup) => {
  const channels = []
  await each(entries, resolve, failed, async (entry, exported) => {
    const channel = typeof exported === "function" ? await exported(setup) : exported
    if (!plain(channel) || !isText(channel.id) || !isText(channel.name)) {
      throw new Error("the default export must be a channel { id, name, … } or a function returning one")
    }
    if (channels.some((known) => known.id === channel.id)) {
      alerts.push({
        level: "warning",
        message: `${entry}: channel id ${channel.id} is used twice; the first one is kept`,
      })
      return
    }
    const verify = channel.webhook?.verify
    channels.push({
      id: channel.id,
      definition: channel,
      description: {
        entry,
        id: channel.id,
        name: channel.name,
        webhook: plain(verify) ? JSON.parse(JSON.stringify(verify)) : null,
        realtime: typeof channel.realtime?.start === "function",
        send: typeof channel.send === "function",
        notify: typeof channel.notify === "function",
      },
    })
  })
  return channels
}
