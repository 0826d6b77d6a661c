import type { DataChangeListener, DataChanges } from '../db/data-changes.ts'
import { CREDENTIALS_CHANGED_CHANNEL } from './credentials-cache.ts'
import type { OwnMarks } from './own-marks.ts'
import type { OwnRow } from './own-records.repository.ts'

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
/** An ISO 8601 timestamp as the API writes it (milliseconds, Z): always 24 characters in years 0 to 9999. */
const ISO_LENGTH = 24

/**
 * One person's own fields, as the answers they read show them: their answers (by question, likert before choice,
 * then id), their follow links, how many drafts they have, and the question set's version when they were read. Kept in typed arrays and one string of times: about 70 bytes an answer.
 */
export class OwnRecord {
  readonly drafts: number
  /** The question set's version (migration 026) read in the same snapshot. */
  readonly questionSetVersion: number
  /** Bytes it holds, roughly. */
  readonly size: number
  readonly #questions: Int32Array
  readonly #ids: Int32Array
  readonly #objects: Int32Array
  readonly #values: Int16Array
  readonly #flags: Uint8Array
  readonly #importances: Int16Array
  /** Each answer's creation and modification times as the API writes them, one after the other. */
  readonly #times: string
  readonly #following: Int32Array
  readonly #followIds: Int32Array
  readonly #followCreated: Float64Array
  #answered: Set<number> | null = null

  /**
   * @param mark the person's mark (OwnMarks) when it was read
   * @param generation the response cache's change count when the read began: anything kept from reads that began at
   *   or after it shows every write of the person's that this record does
   */
  constructor(
    readonly userId: number,
    readonly mark: string | null,
    readonly generation: number,
    rows: readonly OwnRow[],
  ) {
    const answers = rows.filter((row) => row.kind <= 1)
    const follows = rows.filter((row) => row.kind === 2)
    this.drafts = rows.find((row) => row.kind === 3)?.target ?? 0
    this.questionSetVersion = rows.find((row) => row.kind === 4)?.target ?? 0
    const n = answers.length
    this.#questions = new Int32Array(n)
    this.#ids = new Int32Array(n)
    this.#objects = new Int32Array(n)
    this.#values = new Int16Array(n)
    this.#flags = new Uint8Array(n)
    this.#importances = new Int16Array(n)
    const times: string[] = []
    answers.forEach((row, i) => {
      this.#questions[i] = row.target
      this.#ids[i] = row.id
      this.#objects[i] = row.kind === 1 ? row.choice_id! : row.target
      this.#values[i] = row.value ?? NO_VALUE
      this.#flags[i] = (row.skipped ? SKIPPED : 0) | (row.private ? PRIVATE : 0)
      this.#importances[i] = row.importance ?? NO_VALUE
      times.push(row.created_at!.toISOString(), row.modified_at!.toISOString())
    })
    // Written once here, not on every read (a page of 100 shows up to 100 of them); one string, 48 bytes an answer.
    this.#times = times.join('')
    this.#following = Int32Array.from(follows, (row) => row.target)
    this.#followIds = Int32Array.from(follows, (row) => row.id)
    this.#followCreated = Float64Array.from(follows, (row) => row.created_at!.getTime())
    this.size = 200 + n * 67 + follows.length * 16
  }

  /** The answer's creation (0) or modification (1) time. */
  #time(i: number, which: 0 | 1): string {
    const at = (2 * i + which) * ISO_LENGTH
    return this.#times.slice(at, at + ISO_LENGTH)
  }

  /** The first index of the question's answers (they follow one another). */
  #first(questionId: number): number {
    let low = 0
    let high = this.#questions.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (this.#questions[middle]! < questionId) low = middle + 1
      else high = middle
    }
    return low
  }

  /** The person's answers to the question, as my_vote lists them. */
  votesOn(questionId: number): OwnVote[] {
    const votes: OwnVote[] = []
    for (let i = this.#first(questionId); i < this.#questions.length && this.#questions[i] === questionId; i++) {
      const value = this.#values[i]!
      votes.push({
        id: this.#ids[i]!,
        object_id: this.#objects[i]!,
        value: value === NO_VALUE ? null : value,
        skipped: (this.#flags[i]! & SKIPPED) !== 0,
        private: (this.#flags[i]! & PRIVATE) !== 0,
        created_at: this.#time(i, 0),
        modified_at: this.#time(i, 1),
      })
    }
    return votes
  }

  /** How important the person said the question is (a likert answer's), as my_importance lists it. */
  importanceOf(questionId: number): { object_id: number; value: number; modified_at: string }[] {
    for (let i = this.#first(questionId); i < this.#questions.length && this.#questions[i] === questionId; i++) {
      const importance = this.#importances[i]!
      // Only likert answers carry an importance.
      if (importance !== NO_VALUE) return [{ object_id: questionId, value: importance, modified_at: this.#time(i, 1) }]
    }
    return []
  }

  /** The person's follow links to this user, as a user's `follow` lists them. */
  followsOf(userId: number): { id: number; following: number; created_at: string }[] {
    const out: { id: number; following: number; created_at: string }[] = []
    for (let i = 0; i < this.#following.length; i++)
      if (this.#following[i] === userId)
        out.push({ id: this.#followIds[i]!, following: userId, created_at: new Date(this.#followCreated[i]!).toISOString() })
    return out
  }

  /** The questions the person answered, likert or choice, skips included. */
  get answered(): ReadonlySet<number> {
    return (this.#answered ??= new Set(this.#questions))
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
  #changes = 0
  /** The notices this cache hears (set once listening). */
  notices: DataChanges | null = null

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
    const changes = this.#changes
    const generation = this.options.generation()
    const record = new OwnRecord(userId, mark, generation, await this.options.load(userId))
    // A notice that came during the read may be newer than it: used for this request, not kept.
    if (changes === this.#changes && this.enabled) this.#keep(userId, { mark, record })
    return record
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

  /** The person wrote through this process: their record is dropped, and their mark moved, before the answer leaves. */
  async changed(userId: number): Promise<void> {
    this.#changes++
    this.#forget(userId)
    const mark = await this.options.marks.touch(userId).catch(() => null)
    if (this.enabled) this.#keep(userId, { mark, record: null })
  }

  #forget(userId: number): void {
    const kept = this.#kept.get(userId)
    if (!kept?.record) return
    this.#bytes -= kept.record.size
    kept.record = null
  }

  /**
   * `own_changed`: these people (comma-separated ids), or anyone (empty); `credentials_changed`: a person's tokens or
   * standing (their id), or an application key (ignored). The mark seen stays known.
   */
  onChange(channel?: string, payload?: string): void {
    this.#changes++
    if (channel === CREDENTIALS_CHANGED_CHANNEL) return this.#forget(Number(payload))
    if (channel === undefined || !payload) {
      this.#kept.clear()
      this.#bytes = 0
      return
    }
    for (const id of payload.split(',')) this.#forget(Number(id))
  }

  onLost(): void {
    this.#changes++
    this.#kept.clear()
    this.#bytes = 0
  }
}
