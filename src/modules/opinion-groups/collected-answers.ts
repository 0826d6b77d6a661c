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

/** ES2024's resizable ArrayBuffer, which Node 20 has and the ES2022 library types do not describe. */
interface ResizableBuffer extends ArrayBuffer {
  resize(byteLength: number): void
}
const Resizable = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableBuffer

const KEYS = ['accountId', 'questionId', 'value', 'private'] as const
const BYTES = { accountId: 4, questionId: 4, value: 4, private: 1 } as const

/** The answers read, and `release()`, which gives their memory back at once (the views are empty after it). */
export type ReadAnswers = ScopeAnswers & { release(): void }

/**
 * Typed columns that grow as windows of answers arrive. Each lives in a resizable buffer with room reserved for
 * half as many again as expected, so growing copies nothing, and releasing frees the memory there and then rather
 * than at V8's next full collection (for 10 M answers, 130 MB the computation that follows need not hold).
 */
export class CollectedAnswers {
  private length = 0
  private reserved: number
  private buffers!: Record<(typeof KEYS)[number], ResizableBuffer>

  constructor(expected: number) {
    this.reserved = Math.max(1024, Math.ceil(expected * 1.5))
    this.buffers = this.reserve(this.reserved)
  }

  private reserve(answers: number) {
    return Object.fromEntries(KEYS.map((key) => [key, new Resizable(0, { maxByteLength: answers * BYTES[key] })])) as Record<
      (typeof KEYS)[number],
      ResizableBuffer
    >
  }

  private views(): ScopeAnswers {
    const { accountId, questionId, value, private: hidden } = this.buffers
    return {
      accountId: new Int32Array(accountId, 0, this.length),
      questionId: new Int32Array(questionId, 0, this.length),
      value: new Int32Array(value, 0, this.length),
      private: new Uint8Array(hidden, 0, this.length),
    }
  }

  private grow(total: number): void {
    if (total > this.reserved) {
      // More answers than the stored figures said: a larger reservation, the answers so far copied over.
      const before = this.views()
      this.reserved = Math.ceil(total * 1.5)
      this.buffers = this.reserve(this.reserved)
      for (const key of KEYS) this.buffers[key].resize(total * BYTES[key])
      const after = this.views()
      for (const key of KEYS) after[key].set(before[key])
      return
    }
    for (const key of KEYS) this.buffers[key].resize(total * BYTES[key])
  }

  append(arrays: AnswerArrays | undefined): void {
    const count = arrays?.count ?? 0
    if (!arrays || count === 0) return
    const at = this.length
    this.grow(at + count)
    this.length = at + count
    const columns = this.views()
    parseIntegers(arrays.accounts!, columns.accountId, at)
    parseIntegers(arrays.questions!, columns.questionId, at)
    parseIntegers(arrays.vals!, columns.value, at)
    const hidden = arrays.private!
    for (let i = 0; i < count; i++) columns.private[at + i] = hidden.charCodeAt(i) - 48
  }

  /** The answers collected, as views of exactly their length. */
  answers(): ReadAnswers {
    return {
      ...this.views(),
      release: () => {
        this.length = 0
        for (const key of KEYS) this.buffers[key].resize(0)
      },
    }
  }
}
