import { createHash } from "node:crypto"

/** Dimensions of the fake embeddings. */
export const embeddingDimensions = 64

/**
 * A deterministic embedding: a hashed bag of words, unit length. Words of one concept group (see
 * `FakeModelServer.concepts`) hash as the group's first word, so a test can declare that two
 * phrasings mean the same without sharing a word.
 */
export const fakeEmbedding = (text: string, concepts: ReadonlyMap<string, string>): Array<number> => {
  const vector = new Array<number>(embeddingDimensions).fill(0)
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = concepts.get(match[0]) ?? match[0]
    const digest = createHash("sha256").update(word).digest()
    vector[digest[0]! % embeddingDimensions]! += digest[1]! & 1 ? 1 : -1
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))
  return norm === 0 ? vector : vector.map((x) => x / norm)
}

/** The body of an OpenAI `POST /v1/embeddings` answer. */
export const embeddingsBody = (
  model: string,
  inputs: ReadonlyArray<string>,
  concepts: ReadonlyMap<string, string>,
) => ({
  object: "list",
  model,
  data: inputs.map((input, index) => ({ object: "embedding", index, embedding: fakeEmbedding(input, concepts) })),
  usage: {
    prompt_tokens: inputs.reduce((sum, input) => sum + input.split(/\s+/).length, 0),
    total_tokens: inputs.reduce((sum, input) => sum + input.split(/\s+/).length, 0),
  },
})
