/** The answers of a scope as typed columns, filled from the text one or several reads return (the repository's). */

/** Every current answer of the scope's questions, likert and choice, skips left out; `value` is the choice's id for a choice. */
export interface ScopeAnswers {
  accountId: Int32Array
  questionId: Int32Array
  value: Int32Array
  private: Uint8Array
}

/** One read's columns as text: the numbers comma-separated, privacy as one 0 or 1 per answer. */
export interface AnswerArrays {
  count: number
  accounts: string | null
  questions: string | null
  vals: string | null
  private: string | null
}

/**
 * Writes the comma-separated non-negative integers of `text` into `into` from `at`. A hand-written loop: a driver's
 * array parser makes a JavaScript number array first, which for millions of answers costs more than the query.
 */
function parseIntegers(text: string, into: Int32Array, at: number): void {
  let value = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 44) {
      into[at++] = value
      value = 0
    } else value = value * 10 + (code - 48)
  }
  into[at] = value
}

/** Typed columns that grow as windows of answers arrive. */
export class CollectedAnswers {
  private length = 0
  private columns: ScopeAnswers

  constructor(capacity: number) {
    this.columns = CollectedAnswers.allocate(Math.max(16, capacity))
  }

  private static allocate(capacity: number): ScopeAnswers {
    return {
      accountId: new Int32Array(capacity),
      questionId: new Int32Array(capacity),
      value: new Int32Array(capacity),
      private: new Uint8Array(capacity),
    }
  }

  append(arrays: AnswerArrays | undefined): void {
    const count = arrays?.count ?? 0
    if (!arrays || count === 0) return
    if (this.length + count > this.columns.accountId.length) {
      const grown = CollectedAnswers.allocate(Math.ceil((this.length + count) * 1.25))
      for (const key of ['accountId', 'questionId', 'value', 'private'] as const) grown[key].set(this.columns[key].subarray(0, this.length))
      this.columns = grown
    }
    const at = this.length
    parseIntegers(arrays.accounts!, this.columns.accountId, at)
    parseIntegers(arrays.questions!, this.columns.questionId, at)
    parseIntegers(arrays.vals!, this.columns.value, at)
    const hidden = arrays.private!
    for (let i = 0; i < count; i++) this.columns.private[at + i] = hidden.charCodeAt(i) - 48
    this.length += count
  }

  /** The answers collected, as views of exactly their length. */
  answers(): ScopeAnswers {
    const { accountId, questionId, value, private: hidden } = this.columns
    return {
      accountId: accountId.subarray(0, this.length),
      questionId: questionId.subarray(0, this.length),
      value: value.subarray(0, this.length),
      private: hidden.subarray(0, this.length),
    }
  }
}
