import { sql } from 'kysely'
import { blockOf, type Block, type BlockRow } from '../../engines/liquid/liquid.repository.ts'
import { tallyFromRow, type Tally } from '../../engines/statistics/tally.ts'
import type { VotableQuestion } from './vote-rules.ts'
import type { Db } from '../../db/types.ts'

/** What a new answer reads, its question locked first. */
export interface AnswerContext<Row> {
  question: VotableQuestion
  /** The question's counts, read under its lock (a likert answer's figures). */
  tally: Tally
  /** A pick's: the counts of the choices it touches, locked in id order after the question. */
  choices: Map<number, Tally>
  now: Date
  defaultPrivate: boolean
  block: Block
  current: Row | undefined
  collectionExists: boolean
}

type ContextRow = BlockRow & {
  question: Record<string, unknown>
  choices: Record<string, unknown>[] | null
  now: Date
  default_private: boolean | null
  current: Record<string, unknown> | null
  collection_exists: boolean
}

type LockedAnswerRow = BlockRow & { question: Record<string, unknown>; vote: Record<string, unknown>; now: Date }

/** What every kind of vote reads besides its own table: the clock, the voter's default, collections. */
export function voteContextRepository(db: Db) {
  return {
    /** The database clock, read after the locks are held, so that answer times grow in lock order. */
    async now(): Promise<Date> {
      const { rows } = await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(db)
      return new Date(rows[0].now)
    },

    /**
     * A new answer's first round trip (migration 027, answer_context): the question locked (a pick's through its
     * choice, then the choices it touches), then, under those locks, the clock, the voter's default privacy, their
     * liquid block on the question (read before the answer changes), their current answer (locked) and whether the
     * collection named exists. The transaction's notices are left to its process. Undefined: no such question or
     * choice.
     */
    async lockedForAnswer<Row>(
      object: { question: number } | { choice: number },
      userId: number,
      answers: 'question_votes' | 'question_choice_votes',
      collection: number | null,
    ): Promise<AnswerContext<Row> | undefined> {
      const question = 'question' in object ? object.question : null
      const choice = 'choice' in object ? object.choice : null
      const { rows } = await sql<ContextRow>`SELECT * FROM answer_context(${question}::integer, ${choice}::integer,
        ${userId}::integer, ${answers}::text, ${collection}::integer)`.execute(db)
      const row = rows[0]
      if (!row) return undefined
      return {
        ...lockedQuestion(row.question),
        choices: new Map((row.choices ?? []).map((choice) => [Number(choice.id), tallyFromRow(choice, true)])),
        now: new Date(row.now),
        defaultPrivate: row.default_private ?? false,
        block: blockOf(row),
        current: row.current ? (rowOfJson(row.current) as Row) : undefined,
        collectionExists: row.collection_exists,
      }
    },

    /**
     * An edit's or a withdrawal's first round trip (migration 027, answer_locked): the answer's question locked, then
     * the answer itself (locked), the clock and, with `withBlock`, the answerer's liquid block. Undefined: no such
     * answer.
     */
    async lockedAnswer<Row>(
      answers: 'question_votes' | 'question_choice_votes',
      voteId: number,
      withBlock: boolean,
    ): Promise<{ question: VotableQuestion; tally: Tally; vote: Row; now: Date; block: Block | null } | undefined> {
      const { rows } = await sql<LockedAnswerRow>`SELECT * FROM answer_locked(${answers}::text, ${voteId}::integer, ${withBlock})`.execute(
        db,
      )
      const row = rows[0]
      if (!row) return undefined
      return {
        ...lockedQuestion(row.question),
        vote: rowOfJson(row.vote) as Row,
        now: new Date(row.now),
        block: withBlock ? blockOf(row) : null,
      }
    },

    async defaultPrivate(userId: number): Promise<boolean> {
      const row = await db.selectFrom('users').select('default_private').where('id', '=', userId).executeTakeFirst()
      return row?.default_private ?? false
    },

    async collectionExists(id: number): Promise<boolean> {
      return (await db.selectFrom('question_collections').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    },
  }
}

/** The question row as lock_question_for_answers read it: what the answer rules need, and its counts. */
function lockedQuestion(json: Record<string, unknown>): { question: VotableQuestion; tally: Tally } {
  const row = rowOfJson(json)
  return { question: row as unknown as VotableQuestion, tally: tallyFromRow(row, true) }
}

/** A row read as JSON, with its times (`…_at`) as dates again, as the driver reads them from a row. */
function rowOfJson(json: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(json).map(([key, value]) => [key, key.endsWith('_at') && typeof value === 'string' ? new Date(value) : value]),
  )
}
