/**
 * A small seeded pseudo-random generator (sfc32, seeded through splitmix32), so that the same seed
 * always gives the same data. Each part of the seed takes its own named stream (`rng.stream('votes')`),
 * so that a change to one part does not shift the numbers drawn by the others.
 */

function splitmix32(state: number): () => number {
  let s = state >>> 0
  return () => {
    s = (s + 0x9e3779b9) >>> 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) >>> 0
  }
}

/** FNV-1a over the UTF-16 code units of a label. */
function hashLabel(label: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export class Random {
  private a: number
  private b: number
  private c: number
  private d: number
  private spareNormal: number | null = null

  constructor(private readonly seed: number) {
    const mix = splitmix32(seed)
    this.a = mix()
    this.b = mix()
    this.c = mix()
    this.d = mix()
    for (let i = 0; i < 12; i++) this.nextUint32()
  }

  /** An independent generator for one named part of the data. */
  stream(label: string): Random {
    return new Random((Math.imul(this.seed ^ 0x5bd1e995, 31) ^ hashLabel(label)) >>> 0)
  }

  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0
    this.d = (this.d + 1) >>> 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) >>> 0
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0
    this.c = (this.c + t) >>> 0
    return t
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296
  }

  /** Integer in [low, high], both included. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1))
  }

  /** Uniform float in [low, high). */
  float(low: number, high: number): number {
    return low + this.next() * (high - low)
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }

  /** Index drawn with probability proportional to its weight. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0
    for (const w of weights) total += w
    let x = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]
      if (x < 0) return i
    }
    return weights.length - 1
  }

  weighted<T>(items: readonly (readonly [T, number])[]): T {
    return items[this.weightedIndex(items.map((item) => item[1]))][0]
  }

  /** Standard normal (Marsaglia polar method). */
  normal(): number {
    if (this.spareNormal !== null) {
      const spare = this.spareNormal
      this.spareNormal = null
      return spare
    }
    for (;;) {
      const u = this.next() * 2 - 1
      const v = this.next() * 2 - 1
      const s = u * u + v * v
      if (s > 0 && s < 1) {
        const m = Math.sqrt((-2 * Math.log(s)) / s)
        this.spareNormal = v * m
        return u * m
      }
    }
  }

  /** Log-normal with median 1: heavy-tailed popularity and activity weights. */
  logNormal(sigma: number): number {
    return Math.exp(this.normal() * sigma)
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean
  }

  /** Poisson-distributed count (Knuth for small means, a rounded normal for large ones). */
  poisson(mean: number): number {
    if (mean > 30) return Math.max(0, Math.round(mean + this.normal() * Math.sqrt(mean)))
    const limit = Math.exp(-mean)
    let k = 0
    let p = this.next()
    while (p > limit) {
      k++
      p *= this.next()
    }
    return k
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1))
      const t = items[i]
      items[i] = items[j]
      items[j] = t
    }
    return items
  }

  /** k distinct integers of [0, n), in drawing order. */
  distinctInts(n: number, k: number): number[] {
    const take = Math.min(k, n)
    if (take * 4 >= n) return this.shuffle(Array.from({ length: n }, (_, i) => i)).slice(0, take)
    const seen = new Set<number>()
    const out: number[] = []
    while (out.length < take) {
      const i = Math.floor(this.next() * n)
      if (!seen.has(i)) {
        seen.add(i)
        out.push(i)
      }
    }
    return out
  }

  /** k distinct items, in drawing order. */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.distinctInts(items.length, k).map((i) => items[i])
  }
}

/**
 * Walker/Vose alias table: draws an index in O(1) with probability proportional to its weight.
 */
export class AliasTable {
  private readonly prob: Float64Array
  private readonly alias: Int32Array

  constructor(weights: ArrayLike<number>) {
    const n = weights.length
    this.prob = new Float64Array(n)
    this.alias = new Int32Array(n)
    let total = 0
    for (let i = 0; i < n; i++) total += weights[i]
    const scaled = new Float64Array(n)
    const small: number[] = []
    const large: number[] = []
    for (let i = 0; i < n; i++) {
      scaled[i] = (weights[i] * n) / total
      ;(scaled[i] < 1 ? small : large).push(i)
    }
    while (small.length && large.length) {
      const s = small.pop()!
      const l = large.pop()!
      this.prob[s] = scaled[s]
      this.alias[s] = l
      scaled[l] = scaled[l] + scaled[s] - 1
      ;(scaled[l] < 1 ? small : large).push(l)
    }
    for (const i of large) this.prob[i] = 1
    for (const i of small) this.prob[i] = 1
  }

  get size(): number {
    return this.prob.length
  }

  draw(rng: Random): number {
    const x = rng.next() * this.prob.length
    const i = Math.floor(x)
    return x - i < this.prob[i] ? i : this.alias[i]
  }
}
