import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'

export interface CollectionFigures {
  answerers: number
  answers: number
  complete_count: number
}

/**
 * For each collection, in one statement: who answered its questions (likert or choice, skips and private
 * answers included: these are totals, naming no one), how many answers that makes (one per person and
 * question) and how many answered them all.
 */
export async function collectionFigures(db: Kysely<Database>, collectionIds: number[]): Promise<Map<number, CollectionFigures>> {
  if (collectionIds.length === 0) return new Map()
  const { rows } = await sql<{ parent_id: number; answerers: number; answers: number; complete_count: number }>`
    WITH per_person AS (
      SELECT item.parent_id, v.user_id, count(DISTINCT v.question_id)::int AS answered
      FROM question_collection_items item
      CROSS JOIN LATERAL (
        SELECT qv.user_id, qv.question_id FROM question_votes qv WHERE qv.question_id = item.question_id
        UNION ALL
        SELECT qcv.user_id, qcv.question_id FROM question_choice_votes qcv WHERE qcv.question_id = item.question_id
      ) v
      WHERE item.parent_id = ANY(${[...new Set(collectionIds)]}::int4[]) AND item.type = 'Q'
      GROUP BY item.parent_id, v.user_id
    )
    SELECT p.parent_id, count(*)::int AS answerers, sum(p.answered)::int AS answers,
      (count(*) FILTER (WHERE p.answered >= c.question_count))::int AS complete_count
    FROM per_person p JOIN question_collections c ON c.id = p.parent_id
    GROUP BY p.parent_id`.execute(db)
  return new Map(
    rows.map((row) => [
      row.parent_id,
      { answerers: Number(row.answerers), answers: Number(row.answers), complete_count: Number(row.complete_count) },
    ]),
  )
}
