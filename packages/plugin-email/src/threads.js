// @ts-check
/**
 * What the channel remembers of its conversations, in memory and bounded: how a reply threads
 * (the subject, the mail it answers and its References), which Message-IDs
 * are the assistant's own (so a reply whose client dropped `References` still finds its
 * conversation, and the assistant's own mail is never read as a question), and which approvals
 * were offered in which conversation. After a restart it is empty: a reply then still threads by
 * the conversation id itself (the root Message-ID), and the next mail of the owner refills it.
 */

/** Conversations (and own ids, and approvals) remembered; the oldest go first past this. */
export const REMEMBERED = 1000

/**
 * @typedef {object} Thread
 * @property {string} subject
 * @property {string | null} parent the Message-ID of the mail a reply answers
 * @property {string[]} references the parent's References followed by the parent
 * @property {string[]} approvals approval ids offered in the last reply, still unanswered
 */

/**
 * @template V
 * @param {Map<string, V>} map
 * @param {string} key
 * @param {V} value
 */
const remember = (map, key, value) => {
  map.delete(key)
  map.set(key, value)
  if (map.size > REMEMBERED) {
    const oldest = map.keys().next().value
    if (oldest !== undefined) map.delete(oldest)
  }
}

export const makeThreads = () => {
  /** @type {Map<string, Thread>} */
  const threads = new Map()
  /** @type {Map<string, string>} own Message-ID → conversation */
  const own = new Map()
  /** @type {Map<string, string>} approval id → conversation */
  const approvals = new Map()
  return {
    /** @param {string} conversationId */
    get: (conversationId) => threads.get(conversationId),
    /** @param {string} conversationId @param {Thread} thread */
    set: (conversationId, thread) => remember(threads, conversationId, thread),
    /** @param {string} messageId */
    isOwn: (messageId) => own.has(messageId),
    /** @param {string} messageId */
    conversationOfOwn: (messageId) => own.get(messageId),
    /** @param {string} messageId @param {string} conversationId */
    addOwn: (messageId, conversationId) => remember(own, messageId, conversationId),
    /** @param {string} approvalId */
    conversationOfApproval: (approvalId) => approvals.get(approvalId),
    /** @param {string} approvalId @param {string} conversationId */
    addApproval: (approvalId, conversationId) => remember(approvals, approvalId, conversationId),
  }
}

/** @typedef {ReturnType<typeof makeThreads>} Threads */

/**
 * The References of a reply to `parent`: the parent's own References (at most the first and the
 * last 18, as RFC 5322 allows trimming the middle) followed by the parent.
 * @param {string[]} parentReferences
 * @param {string} parent
 */
export const referencesFor = (parentReferences, parent) => {
  const all = [...parentReferences.filter((id) => id !== parent), parent]
  return all.length <= 20 ? all : [all[0] ?? parent, ...all.slice(-19)]
}

/** @param {string} subject */
export const replySubject = (subject) => {
  const trimmed = subject.trim()
  if (trimmed === "") return "Re: your message"
  return /^re:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`
}
