/**
 * A new thread's title before the server has one: the first words of its first message, by the
 * kernel's rule (`fallbackTitle`: the text trimmed, spaces collapsed, 60 characters with "…"),
 * which is the title the server gives it once the first answer ends. The heading and the list
 * both show it meanwhile, so they agree while the first answer streams.
 */
const titles = new Map<string, string>()

const maximum = 60

export const firstWords = (text: string): string | undefined => {
  const words = text.trim().replace(/\s+/g, " ")
  if (words === "") return undefined
  return words.length <= maximum ? words : `${words.slice(0, maximum - 1).trimEnd()}…`
}

export const provisionalTitle = (threadId: string): string | undefined => titles.get(threadId)

export const setProvisionalTitle = (threadId: string, text: string) => {
  const title = firstWords(text)
  if (title !== undefined) titles.set(threadId, title)
}
