import assert from 'node:assert/strict'
import type { Insertable, Kysely } from 'kysely'
import type { Database, Questions } from '../../src/db/database.ts'
import { recomputeStatistics } from '../../src/modules/statistics/recompute.ts'
import { insertQuestion } from '../helpers/fixtures.ts'

/** Questions to vote on, and the check that every stored figure equals a full recomputation. */

export async function likertQuestion(db: Kysely<Database>, authorId: number, values: Partial<Insertable<Questions>> = {}) {
  return insertQuestion(db, authorId, { subtype: 'likert', ...values })
}

export async function mcqQuestion(db: Kysely<Database>, authorId: number, choiceCount = 3, values: Partial<Insertable<Questions>> = {}) {
  const question = await insertQuestion(db, authorId, { subtype: 'mcq', ...values })
  const choices = await db
    .insertInto('question_choices')
    .values(Array.from({ length: choiceCount }, (_, i) => ({ question_id: question.id, text: `Option ${i + 1} of ${question.slug}`, store_number: i })))
    .returning(['id'])
    .execute()
  return { ...question, choiceIds: choices.map((c) => c.id) }
}

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']
const FAMILY = [...LEVELS, 'skipped', 'vote_count', 'sum', 'value', 'consensus', 'heat']
const family = (prefix: string) => FAMILY.map((name) => `${prefix}_${name}`)

/** Every stored column that answers feed, per table. */
export const VOTE_FED_COLUMNS: Record<string, string[]> = {
  questions: [...family('direct'), ...family('liquid'), 'polarisation'],
  question_choices: [...family('direct'), ...family('liquid'), 'polarisation'],
  question_tags: family('direct'),
  users: ['count_votes', 'count_question_votes', 'count_choice_votes', 'last_answer_time'],
  tags: ['votes_count'],
}

type Snapshot = Record<string, Map<number, Record<string, unknown>>>

async function snapshot(db: Kysely<any>): Promise<Snapshot> {
  const out: Snapshot = {}
  for (const [table, columns] of Object.entries(VOTE_FED_COLUMNS)) {
    const rows = await db.selectFrom(table).select(['id', ...columns]).orderBy('id').execute()
    out[table] = new Map(rows.map((row: Record<string, unknown>) => [Number(row.id), row]))
  }
  return out
}

const comparable = (value: unknown) => (value instanceof Date ? value.getTime() : value)

class RolledBack extends Error {}

/**
 * Runs recomputeStatistics inside a transaction that is rolled back, and compares every vote-fed column
 * of every row with what was stored before: equal to the bit, or the differences are listed.
 */
export async function assertStoredEqualsRecomputed(db: Kysely<Database>, label = ''): Promise<void> {
  const stored = await snapshot(db)
  let recomputed: Snapshot | null = null
  try {
    await db.transaction().execute(async (trx) => {
      await recomputeStatistics(trx)
      recomputed = await snapshot(trx)
      throw new RolledBack()
    })
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error
  }
  const differences: string[] = []
  for (const [table, rows] of Object.entries(recomputed! as Snapshot)) {
    for (const [id, row] of rows) {
      const before = stored[table].get(id)
      for (const column of VOTE_FED_COLUMNS[table]) {
        if (comparable(before?.[column]) !== comparable(row[column])) {
          differences.push(`${table} ${id} ${column}: stored ${String(before?.[column])}, recomputed ${String(row[column])}`)
        }
      }
    }
  }
  assert.deepEqual(differences.slice(0, 20), [], `${label} stored figures differ from a recomputation (${differences.length} differences)`)
}

/** Everything a vote can change, to show that a refused one changed nothing. */
export async function voteState(db: Kysely<Database>): Promise<string> {
  const tables = ['question_votes', 'question_vote_history', 'question_choice_votes', 'question_choice_vote_history', 'question_tag_votes']
  const rows: Record<string, unknown> = {}
  for (const table of tables) rows[table] = await (db as Kysely<any>).selectFrom(table).selectAll().orderBy('id').execute()
  for (const [table, columns] of Object.entries(VOTE_FED_COLUMNS)) {
    rows[table] = await (db as Kysely<any>).selectFrom(table).select(['id', ...columns]).orderBy('id').execute()
  }
  return JSON.stringify(rows)
}
