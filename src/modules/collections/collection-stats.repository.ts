import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { questionVisibleSql } from '../../access/question-access.ts'
import type { ListedCollection } from './listed-counts.ts'

/** A collection's figures twice: over every answer, and over public answers only. */
export interface CollectionFigures {
  answerers: number
  answers: number
  complete_count: number
  /** People with at least one private answer among its questions. */
  private_people: number
  /** Of those, people who answered every question. */
  complete_private_people: number
  public_answerers: number
  public_answers: number
  public_complete_count: number
}

/**
 * For each collection, in one statement: who answered the questions the caller lists of it (likert or choice,
 * skips included), how many answers that makes (one per person and question) and how many answered them all
 * (as many as the caller's listed question count, listed-counts.ts); the same over public answers; and how many of
 * the people have a private answer there (what collection-stats.service.ts releases them by). The answers are read
 * as released (migration 038's views): a private answer, or a change of one, enters with its question's batch, as
 * it enters the question's own figures.
 */
export async function collectionFigures(
  db: Kysely<Database>,
  caller: Caller | null,
  collections: ListedCollection[],
): Promise<Map<number, CollectionFigures>> {
  if (collections.length === 0) return new Map()
  const { rows } = await sql<{ parent_id: number } & { [K in keyof CollectionFigures]: number }>`
    WITH listed AS (
      SELECT * FROM unnest(${collections.map((c) => c.id)}::int4[], ${collections.map((c) => c.listed_questions)}::int4[])
        AS listed(id, question_count)
    ), per_person AS (
      SELECT item.parent_id, v.user_id, count(DISTINCT v.question_id)::int AS answered,
        count(DISTINCT v.question_id) FILTER (WHERE NOT v.private)::int AS answered_public,
        bool_or(v.private) AS has_private
      FROM question_collection_items item
      JOIN questions ON questions.id = item.question_id AND ${questionVisibleSql(caller)}
      CROSS JOIN LATERAL (
        SELECT qv.user_id, qv.question_id, qv.private FROM released_question_votes qv WHERE qv.question_id = item.question_id
        UNION ALL
        SELECT qcv.user_id, qcv.question_id, qcv.private FROM released_choice_votes qcv WHERE qcv.question_id = item.question_id
      ) v
      WHERE item.parent_id IN (SELECT id FROM listed)
      GROUP BY item.parent_id, v.user_id
    )
    SELECT p.parent_id, count(*)::int AS answerers, sum(p.answered)::int AS answers,
      (count(*) FILTER (WHERE p.answered >= c.question_count))::int AS complete_count,
      (count(*) FILTER (WHERE p.has_private))::int AS private_people,
      (count(*) FILTER (WHERE p.has_private AND p.answered >= c.question_count))::int AS complete_private_people,
      (count(*) FILTER (WHERE p.answered_public > 0))::int AS public_answerers,
      sum(p.answered_public)::int AS public_answers,
      (count(*) FILTER (WHERE p.answered_public >= c.question_count))::int AS public_complete_count
    FROM per_person p JOIN listed c ON c.id = p.parent_id
    GROUP BY p.parent_id`.execute(db)
  return new Map(
    rows.map(({ parent_id, ...figures }) => [
      Number(parent_id),
      Object.fromEntries(Object.entries(figures).map(([key, value]) => [key, Number(value)])) as unknown as CollectionFigures,
    ]),
  )
}
