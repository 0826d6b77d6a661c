import { randomBytes } from 'node:crypto'
import type { DataChangeListener, DataChanges } from '../db/data-changes.ts'
import { CREDENTIALS_CHANGED_CHANNEL } from './credentials-cache.ts'
import type { OwnMarks } from './own-marks.ts'
import type { OwnRow } from './own-records.repository.ts'

/** Questions someone answered: a Set, or a person's record. */
export interface AnsweredQuestions extends Iterable<number> {
  has(questionId: number): boolean
}

/** A person's answer as my_vote lists it. */
export interface OwnVote {
  id: number
  object_id: number
  value: number | null
  skipped: boolean
  private: boolean
  created_at: string
  modified_at: string
}

const NO_VALUE = -32768
const SKIPPED = 1
const PRIVATE = 2
/** A likert answer (a pick's object is its choice). */
const LIKERT = 4
/** An ISO 8601 timestamp as the API writes it (milliseconds, Z): always 24 characters in years 0 to 9999. */
const ISO_LENGTH = 24

/** An answer's fields in the record, in this order; then a follow link's. */
const QUESTION = 0
const ID = 1
const OBJECT = 2
const VALUE = 3
const FLAGS = 4
const IMPORTANCE = 5
const ANSWER_STRIDE = 6
const FOLLOWING = 0
const LINK = 1
const FOLLOW_STRIDE = 2

/** An answer as the answer call wrote it (a pick names its choice): what the writing process puts in its record. */
export interface OwnAnswer {
  id: number
  question_id: number
  choice_id?: number | null
  value: number | null
  skipped: boolean
  private: boolean
  importance?: number | null
  created_at: Date
  modified_at: Date
}

/** A record's contents, as read or as patched. */
interface RecordParts {
  answers: number
  numbers: Int32Array
  times: string
  drafts: number
  questionSetVersion: number
}

/** The record's parts from a person's rows (ownRecordsRepository.rows). */
function partsOf(rows: readonly OwnRow[]): RecordParts {
  const answers = rows.filter((row) => row.kind <= 1)
  const follows = rows.filter((row) => row.kind === 2)
  const numbers = new Int32Array(answers.length * ANSWER_STRIDE + follows.length * FOLLOW_STRIDE)
  const times: string[] = []
  answers.forEach((row, i) => {
    const at = i * ANSWER_STRIDE
    numbers[at + QUESTION] = row.target
    numbers[at + ID] = row.id
    numbers[at + OBJECT] = row.kind === 1 ? row.choice_id! : row.target
    numbers[at + VALUE] = row.value ?? NO_VALUE
    numbers[at + FLAGS] = (row.skipped ? SKIPPED : 0) | (row.private ? PRIVATE : 0) | (row.kind === 0 ? LIKERT : 0)
    numbers[at + IMPORTANCE] = row.importance ?? NO_VALUE
    times.push(row.created_at!.toISOString(), row.modified_at!.toISOString())
  })
  const followsAt = answers.length * ANSWER_STRIDE
  follows.forEach((row, i) => {
    numbers[followsAt + i * FOLLOW_STRIDE + FOLLOWING] = row.target
    numbers[followsAt + i * FOLLOW_STRIDE + LINK] = row.id
    times.push(row.created_at!.toISOString())
  })
  return {
    answers: answers.length,
    numbers,
    // Written once here, not on every read (a page of 100 shows up to 100 of them).
    times: times.join(''),
    drafts: rows.find((row) => row.kind === 3)?.target ?? 0,
    questionSetVersion: rows.find((row) => row.kind === 4)?.target ?? 0,
  }
}

/**
 * One person's own fields, as the answers they read show them: their answers (by question, likert before choice,
 * then id), their follow links, how many drafts they have, and the question set's version when they were read. One
 * array of integers and one string of times, whatever the number of answers (each typed array has a backing store of
 * its own to pay for): about 72 bytes an answer.
 */
export class OwnRecord implements AnsweredQuestions {
  readonly drafts: number
  /** The question set's version (migration 026) read in the same snapshot. */
  readonly questionSetVersion: number
  /** Bytes it holds, roughly. */
  readonly size: number
  readonly #answers: number
  /** The answers' fields, then the follow links'. */
  readonly #numbers: Int32Array
  /** Each answer's creation and modification times, then each follow link's creation, as the API writes them. */
  readonly #times: string

  /**
   * @param mark the person's mark (OwnMarks) when it was read
   * @param generation the response cache's change count when the read began: anything kept from reads that began at
   *   or after it shows every write of the person's that this record does
   */
  constructor(
    readonly userId: number,
    readonly mark: string | null,
    readonly generation: number,
    rows: readonly OwnRow[] | RecordParts,
  ) {
    const parts = Array.isArray(rows) ? partsOf(rows) : (rows as RecordParts)
    this.drafts = parts.drafts
    this.questionSetVersion = parts.questionSetVersion
    this.#answers = parts.answers
    this.#numbers = parts.numbers
    this.#times = parts.times
    this.size = 400 + parts.numbers.length * 4 + parts.times.length
  }

  /**
   * This record with the person's answer as the answer call wrote it, first or replacing the one kept: null when the
   * question holds anything else of theirs (the other kind, another pick), or the kept answer is not older.
   */
  withAnswer(answer: OwnAnswer, mark: string | null, generation: number): OwnRecord | null {
    const question = answer.question_id
    const kind = typeof answer.choice_id === 'number' ? 0 : LIKERT
    const at = this.#first(question)
    let replaced = 0
    for (let i = at; i < this.#answers && this.#field(i, QUESTION) === question; i++) {
      if (this.#field(i, ID) !== answer.id || (this.#field(i, FLAGS) & LIKERT) !== kind) return null
      replaced++
    }
    const modified = answer.modified_at.toISOString()
    if (replaced > 0 && this.#time(2 * at + 1) >= modified) return null
    const numbers = new Int32Array(this.#numbers.length + (1 - replaced) * ANSWER_STRIDE)
    numbers.set(this.#numbers.subarray(0, at * ANSWER_STRIDE))
    numbers.set(this.#numbers.subarray((at + replaced) * ANSWER_STRIDE), (at + 1) * ANSWER_STRIDE)
    const own = at * ANSWER_STRIDE
    numbers[own + QUESTION] = question
    numbers[own + ID] = answer.id
    numbers[own + OBJECT] = answer.choice_id ?? question
    numbers[own + VALUE] = answer.value ?? NO_VALUE
    numbers[own + FLAGS] = (answer.skipped ? SKIPPED : 0) | (answer.private ? PRIVATE : 0) | kind
    numbers[own + IMPORTANCE] = answer.importance ?? NO_VALUE
    const times =
      this.#times.slice(0, 2 * at * ISO_LENGTH) +
      answer.created_at.toISOString() +
      modified +
      this.#times.slice(2 * (at + replaced) * ISO_LENGTH)
    const parts = {
      answers: this.#answers + 1 - replaced,
      numbers,
      times,
      drafts: this.drafts,
      questionSetVersion: this.questionSetVersion,
    }
    return new OwnRecord(this.userId, mark, generation, parts)
  }

  /** The `n`th time of the record's string. */
  #time(n: number): string {
    return this.#times.slice(n * ISO_LENGTH, (n + 1) * ISO_LENGTH)
  }

  #field(i: number, field: number): number {
    return this.#numbers[i * ANSWER_STRIDE + field]!
  }

  /** The first index of the question's answers (they follow one another). */
  #first(questionId: number): number {
    let low = 0
    let high = this.#answers
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.#field(middle, QUESTION) < questionId) low = middle + 1
      else high = middle
    }
    return low
  }

  /** The person's answers to the question, as my_vote lists them. */
  votesOn(questionId: number): OwnVote[] {
    const votes: OwnVote[] = []
    for (let i = this.#first(questionId); i < this.#answers && this.#field(i, QUESTION) === questionId; i++) {
      const value = this.#field(i, VALUE)
      const flags = this.#field(i, FLAGS)
      votes.push({
        id: this.#field(i, ID),
        object_id: this.#field(i, OBJECT),
        value: value === NO_VALUE ? null : value,
        skipped: (flags & SKIPPED) !== 0,
        private: (flags & PRIVATE) !== 0,
        created_at: this.#time(2 * i),
        modified_at: this.#time(2 * i + 1),
      })
    }
    return votes
  }

  /** How important the person said the question is (a likert answer's), as my_importance lists it. */
  importanceOf(questionId: number): { object_id: number; value: number; modified_at: string }[] {
    for (let i = this.#first(questionId); i < this.#answers && this.#field(i, QUESTION) === questionId; i++) {
      const importance = this.#field(i, IMPORTANCE)
      // Only likert answers carry an importance.
      if (importance !== NO_VALUE) return [{ object_id: questionId, value: importance, modified_at: this.#time(2 * i + 1) }]
    }
    return []
  }

  /** The person's follow links to this user, as a user's `follow` lists them. */
  followsOf(userId: number): { id: number; following: number; created_at: string }[] {
    const out: { id: number; following: number; created_at: string }[] = []
    const from = this.#answers * ANSWER_STRIDE
    for (let at = from, n = 2 * this.#answers; at < this.#numbers.length; at += FOLLOW_STRIDE, n++)
      if (this.#numbers[at + FOLLOWING] === userId)
        out.push({ id: this.#numbers[at + LINK]!, following: userId, created_at: this.#time(n) })
    return out
  }

  /** The questions the person answered, likert or choice, skips included (looked up in the record itself). */
  get answered(): AnsweredQuestions {
    return this
  }

  has(questionId: number): boolean {
    const i = this.#first(questionId)
    return i < this.#answers && this.#field(i, QUESTION) === questionId
  }

  *[Symbol.iterator](): Iterator<number> {
    for (let i = 0; i < this.#answers; i++) {
      const question = this.#field(i, QUESTION)
      if (i === 0 || this.#field(i - 1, QUESTION) !== question) yield question
    }
  }
}

/** A person whose mark this process has seen, and their record once read. */
interface Kept {
  mark: string | null
  record: OwnRecord | null
}

export interface OwnRecordsOptions {
  /** Memory for records (their sizes); 0 keeps none. */
  maxBytes: number
  marks: OwnMarks
  /** Reads a person's rows (ownRecordsRepository.rows). */
  load: (userId: number) => Promise<OwnRow[]>
  /** The response cache's change count now. */
  generation: () => number
  /** A person's write this process had not heard of: whatever it keeps may predate it. */
  unseenChange: () => void
}

/**
 * Each signed-in person's own fields, kept in each process (least recently used out first), so their reads are the
 * kept anonymous answer with their own part put in. Exact after the person's own write in any process: the
 * writing process drops the record before its answer leaves and moves the person's mark (OwnMarks); another
 * process reads the mark on each of the person's requests and reads the record again when it moved. Changes made
 * by anyone else (staff unpublishing a question, a choice removed with its answers, a script) come as notices
 * (migration 037); nothing is kept while they may be missed.
 */
export class OwnRecords implements DataChangeListener {
  readonly #kept = new Map<number, Kept>()
  readonly #loading = new Map<number, Promise<OwnRecord>>()
  #bytes = 0
  /**
   * The people whose record is being read or written through this process now: how many such operations, and how
   * many changes of theirs came meanwhile (an operation that saw one keeps nothing it read before it).
   */
  readonly #busy = new Map<number, { operations: number; changes: number }>()
  /** Times everything kept was dropped. */
  #clears = 0
  /** The notices this cache hears (set once listening). */
  notices: DataChanges | null = null
  /** Marks this process's own `own_changed` notices (`<id>@<sender>`): it has taken its writes in already. */
  readonly sender = randomBytes(6).toString('hex')

  constructor(private readonly options: OwnRecordsOptions) {}

  get enabled(): boolean {
    return this.options.maxBytes > 0 && (this.notices?.listening ?? false)
  }

  /** Whether the person's record is kept now. */
  holds(userId: number): boolean {
    return this.#kept.get(userId)?.record != null
  }

  get size(): { people: number; bytes: number } {
    return { people: this.#kept.size, bytes: this.#bytes }
  }

  /**
   * The person's record as it is now: kept, or read (one statement) and kept. Null when records are not kept or the
   * marks cannot be read (the caller then reads what it needs itself).
   */
  async of(userId: number): Promise<OwnRecord | null> {
    if (!this.enabled) return null
    const { marks } = this.options
    let mark: string | null = null
    if (marks.shared) {
      try {
        mark = await marks.read(userId)
      } catch {
        return null
      }
    }
    const kept = this.#kept.get(userId)
    if (kept?.record && kept.mark === mark) {
      this.#kept.delete(userId)
      this.#kept.set(userId, kept)
      return kept.record
    }
    if (mark !== null && kept?.mark !== mark) this.options.unseenChange()
    const loading = this.#loading.get(userId)
    if (loading) {
      const record = await loading
      if (record.mark === mark) return record
    }
    const read = this.#read(userId, mark)
    this.#loading.set(userId, read)
    try {
      return await read
    } finally {
      if (this.#loading.get(userId) === read) this.#loading.delete(userId)
    }
  }

  async #read(userId: number, mark: string | null): Promise<OwnRecord> {
    const operation = this.#begin(userId)
    const generation = this.options.generation()
    let unchanged: boolean
    let rows: OwnRow[]
    try {
      rows = await this.options.load(userId)
    } finally {
      unchanged = this.#end(userId, operation)
    }
    const record = new OwnRecord(userId, mark, generation, rows)
    // A notice that came during the read may be newer than it: used for this request, not kept.
    if (unchanged && this.enabled) this.#keep(userId, { mark, record })
    return record
  }

  /** An operation on the person's record begins: what it must compare when it ends. */
  #begin(userId: number): { changes: number; clears: number } {
    let busy = this.#busy.get(userId)
    if (!busy) this.#busy.set(userId, (busy = { operations: 0, changes: 0 }))
    busy.operations++
    return { changes: busy.changes, clears: this.#clears }
  }

  /** Whether nothing of the person's changed (nor everything was dropped) since the operation began. */
  #end(userId: number, operation: { changes: number; clears: number }): boolean {
    const busy = this.#busy.get(userId)!
    if (--busy.operations === 0) this.#busy.delete(userId)
    return busy.changes === operation.changes && operation.clears === this.#clears
  }

  #keep(userId: number, kept: Kept): void {
    const old = this.#kept.get(userId)
    if (old) {
      this.#bytes -= old.record?.size ?? 0
      this.#kept.delete(userId)
    }
    this.#kept.set(userId, kept)
    this.#bytes += kept.record?.size ?? 0
    for (const [oldest, entry] of this.#kept) {
      if (this.#bytes <= this.options.maxBytes) break
      this.#kept.delete(oldest)
      this.#bytes -= entry.record?.size ?? 0
    }
  }

  /**
   * The person wrote through this process: their record is dropped, and their mark moved, before the answer leaves.
   * An answer the call returned is put in the record instead, when that record was current as the person
   * wrote: its mark was still theirs, and nothing else of theirs changed here meanwhile.
   */
  async changed(userId: number, answer?: OwnAnswer): Promise<void> {
    const seen = this.#kept.get(userId)?.record ?? null
    this.#forget(userId)
    const operation = this.#begin(userId)
    let moved: { mark: string | null; previous: string | null } | null = null
    try {
      moved = await this.options.marks.touch(userId)
    } catch {
      // The mark is unknown: nothing is put in.
    }
    const alone = this.#end(userId, operation)
    if (!this.enabled) return
    const current = alone && moved !== null && seen !== null && seen.mark === moved.previous
    const record = current && answer ? seen.withAnswer(answer, moved!.mark, this.options.generation()) : null
    this.#keep(userId, { mark: moved?.mark ?? null, record })
  }

  /** Something of the person's changed: their record is dropped, and what is being read or written of it not kept. */
  #forget(userId: number): void {
    const busy = this.#busy.get(userId)
    if (busy) busy.changes++
    const kept = this.#kept.get(userId)
    if (!kept?.record) return
    this.#bytes -= kept.record.size
    kept.record = null
  }

  /**
   * `own_changed`: these people (comma-separated ids), or anyone (empty), or a person who wrote through a process
   * (`<id>@<sender>`, ignored by that process); `credentials_changed`: a person's tokens or standing (their id), or an
   * application key (ignored). The mark seen stays known.
   */
  onChange(channel?: string, payload?: string): void {
    const at = payload?.indexOf('@') ?? -1
    if (at >= 0 && payload!.slice(at + 1) === this.sender) return
    if (at >= 0) payload = payload!.slice(0, at)
    if (channel === CREDENTIALS_CHANGED_CHANNEL) return this.#forget(Number(payload))
    if (channel === undefined || !payload) {
      this.#clears++
      this.#kept.clear()
      this.#bytes = 0
      return
    }
    for (const id of payload.split(',')) this.#forget(Number(id))
  }

  onLost(): void {
    this.#clears++
    this.#kept.clear()
    this.#bytes = 0
  }
}
