import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import type { Insertable, Kysely } from 'kysely'
import { foldFigureDeltas } from '../../src/db/answer-gate.ts'
import type { Database, Questions } from '../../src/db/database.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'
import { USER_ANSWER_COUNTERS } from '../../src/engines/figures/recompute.repository.ts'
import { insertQuestion } from '../helpers/fixtures.ts'

/** Questions to vote on, and the check that every stored figure equals a full recomputation. */

export async function likertQuestion(db: Kysely<Database>, authorId: number, values: Partial<Insertable<Questions>> = {}) {
  return insertQuestion(db, authorId, { subtype: 'likert', ...values })
}

export async function mcqQuestion(db: Kysely<Database>, authorId: number, choiceCount = 3, values: Partial<Insertable<Questions>> = {}) {
  const question = await insertQuestion(db, authorId, { subtype: 'mcq', ...values })
  const choices = await db
    .insertInto('question_choices')
    .values(
      Array.from({ length: choiceCount }, (_, i) => ({
        question_id: question.id,
        text: `Option ${i + 1} of ${question.slug}`,
        store_number: i,
      })),
    )
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
  user_answer_counts: [...USER_ANSWER_COUNTERS],
  tags: ['votes_count'],
}

/**
 * Recomputes every figure in a transaction that is rolled back, and compares every vote-fed column of
 * every row with what was stored before: equal to the bit, or the differences are listed.
 */
export async function assertStoredEqualsRecomputed(db: Kysely<Database>, label = ''): Promise<void> {
  const differences = await storedFigureDifferences(db, VOTE_FED_COLUMNS)
  const lines = differences.map((d) => `${d.table} ${d.id} ${d.column}: stored ${String(d.stored)}, recomputed ${String(d.recomputed)}`)
  assert.deepEqual(lines.slice(0, 20), [], `${label} stored figures differ from a recomputation (${lines.length} differences)`)
}

/**
 * Everything a vote can change, to show that a refused one changed nothing: the stored counts read once the answers'
 * deltas are folded into them (a fold changes no figure a reader sees, only where it is kept).
 */
export async function voteState(db: Kysely<Database>): Promise<string> {
  await foldFigureDeltas(db, true)
  const tables = ['question_votes', 'question_vote_history', 'question_choice_votes', 'question_choice_vote_history', 'question_tag_votes']
  const rows: Record<string, unknown> = {}
  for (const table of tables) rows[table] = await (db as Kysely<any>).selectFrom(table).selectAll().orderBy('id').execute()
  for (const [table, columns] of Object.entries(VOTE_FED_COLUMNS)) {
    rows[table] = await (db as Kysely<any>)
      .selectFrom(table)
      .select(['id', ...columns])
      .orderBy('id')
      .execute()
  }
  return JSON.stringify(rows)
}

/** A vote refused with 400 and these field errors, having changed nothing a vote can change. */
export async function assertRefused(db: Kysely<Database>, send: () => Promise<LightMyRequestResponse>, errors: unknown): Promise<void> {
  const before = await voteState(db)
  const response = await send()
  assert.equal(response.statusCode, 400, response.body)
  assert.deepEqual(response.json(), errors)
  assert.equal(await voteState(db), before)
}
