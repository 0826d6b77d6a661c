import assert from 'node:assert/strict'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { recomputeStatistics } from '../../src/modules/statistics/recompute.ts'

/** Every stored figure and counter that questions and what hangs off them feed, keyed by table and row. */
const TABLES: Record<string, string> = {
  users: 'count_questions, count_votes, count_question_votes, count_choice_votes, count_comments, count_comment_votes',
  tags: 'questions_count, votes_count, followers_count',
  areas: 'question_count, members_count',
  question_collections: 'question_count, item_count',
  questions: 'direct_vote_count, direct_sum, direct_value, direct_consensus, direct_heat, liquid_vote_count, polarisation, count_comments',
  question_choices: 'direct_minimum, direct_low, direct_medium, direct_high, direct_maximum, direct_vote_count, direct_value, direct_consensus',
  question_tags: 'direct_vote_count, direct_value',
  question_links: 'direct_minimum, direct_low, direct_medium, direct_high, direct_maximum, direct_vote_count, direct_sum, direct_value, direct_consensus, direct_heat',
  question_question_connections: 'direct_minimum, direct_low, direct_medium, direct_high, direct_maximum, direct_vote_count, direct_sum, direct_value, direct_consensus, direct_heat',
}

async function snapshot(db: Kysely<Database>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const [table, columns] of Object.entries(TABLES)) {
    const { rows } = await sql.raw(`SELECT id, ${columns} FROM ${table} ORDER BY id`).execute(db)
    out[table] = rows
  }
  return out
}

/** What the writes stored equals what a recomputation from the raw rows gives: the recompute changes nothing. */
export async function assertStoredEqualsRecomputed(db: Kysely<Database>): Promise<void> {
  const stored = await snapshot(db)
  await recomputeStatistics(db)
  const recomputed = await snapshot(db)
  for (const table of Object.keys(TABLES)) {
    const before = new Map(stored[table].map((row: any) => [row.id, JSON.stringify(row)]))
    const differing = recomputed[table].filter((row: any) => before.get(row.id) !== JSON.stringify(row))
    assert.deepEqual(differing.map((row: any) => ({ stored: JSON.parse(before.get(row.id) ?? 'null'), recomputed: row })), [], `${table}: stored equals recomputed`)
  }
}
