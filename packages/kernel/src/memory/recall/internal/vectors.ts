/** Vectors as stored: unit length (so cosine is a dot product), float32 little-endian bytes. */

export const normalize = (vector: ReadonlyArray<number>): Float32Array => {
  let norm = 0
  for (const x of vector) norm += x * x
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm)
  return Float32Array.from(vector, (x) => x * scale)
}

export const toBytes = (vector: ReadonlyArray<number>): Uint8Array => new Uint8Array(normalize(vector).buffer)

/** A copy: driver buffers may sit at offsets a Float32Array cannot view. */
export const fromBytes = (bytes: Uint8Array): Float32Array =>
  new Float32Array(Uint8Array.prototype.slice.call(bytes).buffer)

export const dot = (a: Float32Array, b: Float32Array): number => {
  const n = Math.min(a.length, b.length)
  let sum = 0
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!
  return sum
}
