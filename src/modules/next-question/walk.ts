import type { AnsweredQuestions } from '../../access/own-records.ts'
import type { WalkItem } from './next-question.repository.ts'

/** Where the caller stands on a walk: how many questions it has open now, how many unanswered, the next ones. */
export interface WalkPosition {
  count: number
  unanswered: number
  next: number[]
  /** The question set's version the walk was checked against, when it was. */
  version?: number
}

const NONE = Number.NaN

/**
 * The questions a walk serves, in its order, with when each opens and closes, indexed by id: a caller's position
 * costs their answers and the questions up to the next ones, not the whole walk (9,000 open questions on the large
 * seed, against 60 answers).
 */
export class Walk {
  readonly ids: Int32Array
  readonly #opens: Float64Array
  readonly #closes: Float64Array
  readonly #index = new Map<number, number>()
  /** How many are open, until the next opening or closing. */
  #open: { count: number; from: number; until: number } | null = null

  constructor(items: readonly WalkItem[]) {
    this.ids = Int32Array.from(items, (item) => item.id)
    this.#opens = Float64Array.from(items, (item) => item.opensAt ?? NONE)
    this.#closes = Float64Array.from(items, (item) => item.closesAt ?? NONE)
    this.ids.forEach((id, i) => this.#index.set(id, i))
  }

  get length(): number {
    return this.ids.length
  }

  #isOpen(i: number, now: number): boolean {
    const opens = this.#opens[i]!
    const closes = this.#closes[i]!
    return !(opens > now) && !(closes <= now)
  }

  #openCount(now: number): number {
    const kept = this.#open
    if (kept && now >= kept.from && now < kept.until) return kept.count
    let count = 0
    let until = Infinity
    for (let i = 0; i < this.ids.length; i++) {
      if (this.#isOpen(i, now)) count++
      const opens = this.#opens[i]!
      const closes = this.#closes[i]!
      if (opens > now && opens < until) until = opens
      if (closes > now && closes < until) until = closes
    }
    this.#open = { count, from: now, until }
    return count
  }

  /** Counts and the next questions: open at `now`, not excluded, in the walk's order. */
  position(answered: AnsweredQuestions, excluded: ReadonlySet<number>, limit: number, now: number): WalkPosition {
    const counted = (id: number) => {
      const i = this.#index.get(id)
      return i !== undefined && this.#isOpen(i, now)
    }
    let count = this.#openCount(now)
    for (const id of excluded) if (counted(id)) count--
    let answeredCount = 0
    for (const id of answered) if (!excluded.has(id) && counted(id)) answeredCount++
    const next: number[] = []
    for (let i = 0; i < this.ids.length && next.length < limit; i++) {
      const id = this.ids[i]!
      if (this.#isOpen(i, now) && !excluded.has(id) && !answered.has(id)) next.push(id)
    }
    return { count, unanswered: count - answeredCount, next }
  }
}
