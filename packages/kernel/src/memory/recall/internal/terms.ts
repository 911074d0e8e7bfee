/**
 * The words of a query as plain terms: letters and digits only, so nothing in them can be read
 * as full-text syntax (quotes, `*`, `NEAR`, `:`, `|`, parentheses) by SQLite or PostgreSQL.
 */

const stopwords = new Set(
  (
    "a an and are as at be but by do does did for from had has have he her his how i if in into is it its " +
    "me my no not of on or our she so that the their them then there these they this to was we were what " +
    "when where which who why will with you your can could would should about just also than too very"
  ).split(" "),
)

/** Most terms a query keeps: each one costs a posting-list scan. */
const maxTerms = 16

const word = /^[\p{L}\p{N}]+$/u

/** Whether `term` is a plain term the indexes may quote as it is. */
export const isPlainTerm = (term: string) => word.test(term)

/** The distinct, lower-cased, meaningful words of `text` (none: the query finds nothing). */
export const queryTerms = (text: string): ReadonlyArray<string> => {
  const terms = new Set<string>()
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const term = match[0]
    if (term.length < 2 || stopwords.has(term)) continue
    terms.add(term)
    if (terms.size === maxTerms) break
  }
  return [...terms]
}
