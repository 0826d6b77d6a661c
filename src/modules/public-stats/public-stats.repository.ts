import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { QUESTION_COLUMNS, questionOrderingWithFigures, questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import type { QuestionListQuery } from '../questions/questions.schemas.ts'
import type { Interval } from './public-stats.schemas.ts'

/** The only SQL of the statistics resources: counts and groupings straight from the raw rows. */

type Bucketed = { bucket: string; count: number }

/** One bucket's answers: public and private ones on each of its days, and the people who gave them. */
export interface AnswerBucket {
  bucket: string
  people: number
  public_people: number
  private_people: number
  public_counts: number[]
  private_counts: number[]
}

/** The bucket of a timestamp column, as its first day in UTC. */
const bucketOf = (interval: Interval, ref: string) =>
  sql<string>`to_char(date_trunc(${interval}, ${sql.ref(ref)} AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`

/** A replaced answer counts once released: a private one replaced while its author's change waits does not yet. */
const released = (h: string) =>
  sql`NOT (${sql.ref(`${h}.private`)} AND EXISTS (SELECT 1 FROM unreleased_answers r
    WHERE r.question_id = ${sql.ref(`${h}.question_id`)} AND r.user_id = ${sql.ref(`${h}.user_id`)} AND ${sql.ref(`${h}.replaced_at`)} >= r.since))`

export function publicStatsRepository(db: Kysely<Database>) {
  return {
    /** A page of the questions the caller may see, with every filter and ordering of the question listing (k = MIN_CELL_SIZE). */
    async questionPage(filters: QuestionListQuery, caller: Caller | null, list: ListRequest, k: number): Promise<RowsPage<QuestionRow>> {
      const ordering = orderingTerms(list.ordering, questionOrderingWithFigures(k), ['-created_at'], column('questions.id'))
      const filtered = questionsRepository(db).filtered(filters, caller)
      return pageOfRows<QuestionRow>(list, filtered, (q) => q.select(QUESTION_COLUMNS), ordering)
    },

    /** The question, when the caller may see it. */
    async question(id: number, caller: Caller | null): Promise<QuestionRow[]> {
      return (await questionsRepository(db).filtered({ id }, caller).select(QUESTION_COLUMNS).execute()) as QuestionRow[]
    },

    /**
     * Who answered each question and when, over current answers and the replaced ones kept in history; the
     * `public_` ones count and time public answers only.
     */
    async answerSummaries(questionIds: number[]) {
      if (questionIds.length === 0) return []
      const { rows } = await sql<{
        question_id: number
        answer_count: number
        private_answer_count: number
        replaced_answer_count: number
        first_answer_at: Date | null
        last_answer_at: Date | null
        public_replaced_answer_count: number
        public_first_answer_at: Date | null
        public_last_answer_at: Date | null
      }>`
        SELECT question_id,
               count(*) FILTER (WHERE current)::int AS answer_count,
               count(*) FILTER (WHERE current AND private)::int AS private_answer_count,
               count(*) FILTER (WHERE NOT current)::int AS replaced_answer_count,
               min(first_at) AS first_answer_at,
               max(last_at) AS last_answer_at,
               count(*) FILTER (WHERE NOT current AND NOT private)::int AS public_replaced_answer_count,
               min(first_at) FILTER (WHERE NOT private) AS public_first_answer_at,
               max(last_at) FILTER (WHERE NOT private) AS public_last_answer_at
        FROM (
          SELECT question_id, true AS current, private, created_at AS first_at, modified_at AS last_at FROM released_question_votes WHERE question_id IN (${sql.join(questionIds)})
          UNION ALL
          SELECT question_id, true, private, created_at, modified_at FROM released_choice_votes WHERE question_id IN (${sql.join(questionIds)})
          UNION ALL
          SELECT question_id, false, private, answered_at, answered_at FROM question_vote_history h WHERE question_id IN (${sql.join(questionIds)}) AND ${released('h')}
          UNION ALL
          SELECT question_id, false, private, answered_at, answered_at FROM question_choice_vote_history h WHERE question_id IN (${sql.join(questionIds)}) AND ${released('h')}
        ) AS answers
        GROUP BY question_id`.execute(db)
      return rows
    },

    /** Every total of general_stats in one statement, over the answers as released (docs/privacy.md, Batches). */
    async totals() {
      const { rows } = await sql<Record<string, number>>`
        SELECT
          (SELECT count(*) FROM users WHERE is_active AND NOT is_deleted)::int AS user_count,
          (SELECT count(*) FROM questions WHERE publish)::int AS question_count,
          (SELECT count(*) FROM released_question_votes)::int AS question_vote_count,
          (SELECT count(*) FROM released_choice_votes)::int AS choice_vote_count,
          ((SELECT count(*) FROM released_question_votes WHERE skipped)
            + (SELECT count(*) FROM released_choice_votes WHERE skipped))::int AS skip_count,
          (SELECT count(*) FROM released_question_votes WHERE private)::int AS private_question_vote_count,
          (SELECT count(*) FROM released_choice_votes WHERE private)::int AS private_choice_vote_count,
          ((SELECT count(*) FROM released_question_votes WHERE skipped AND private)
            + (SELECT count(*) FROM released_choice_votes WHERE skipped AND private))::int AS private_skip_count,
          (SELECT count(*) FROM comments WHERE NOT is_hidden)::int AS comment_count,
          (SELECT count(*) FROM question_collections)::int AS collection_count,
          (SELECT count(*) FROM groups)::int AS group_count,
          (SELECT count(*) FROM tags)::int AS tag_count,
          now() AS generated_at`.execute(db)
      return rows[0] as Record<string, number> & { generated_at: Date }
    },

    async activeUserCount(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('is_active', '=', true)
        .where('is_deleted', '=', false)
        .executeTakeFirstOrThrow()
      return Number(row.count)
    },

    /** Active accounts that registered before `from`: where the running user count starts. */
    async activeUsersBefore(from: Date): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('is_active', '=', true)
        .where('is_deleted', '=', false)
        .where('created_at', '<', from)
        .executeTakeFirstOrThrow()
      return Number(row.count)
    },

    async newActiveUsers(interval: Interval, from: Date, to: Date): Promise<Bucketed[]> {
      const { rows } = await sql<Bucketed>`
        SELECT ${bucketOf(interval, 'created_at')} AS bucket, count(*)::int AS count FROM users
        WHERE is_active AND NOT is_deleted AND created_at >= ${from} AND created_at < ${to} GROUP BY 1`.execute(db)
      return rows
    },

    /**
     * Answers given in each bucket, as released (replaced ones included, at the time they were given), public and private, per
     * UTC day of the bucket; and the people who gave them: everyone, those with a public answer there, and those
     * with a private one.
     */
    async answers(interval: Interval, from: Date, to: Date): Promise<AnswerBucket[]> {
      const { rows } = await sql<AnswerBucket>`
        WITH answers AS (
          SELECT user_id, modified_at AS at, private FROM released_question_votes WHERE modified_at >= ${from} AND modified_at < ${to}
          UNION ALL SELECT user_id, modified_at, private FROM released_choice_votes WHERE modified_at >= ${from} AND modified_at < ${to}
          UNION ALL SELECT user_id, answered_at, private FROM question_vote_history h
            WHERE answered_at >= ${from} AND answered_at < ${to} AND ${released('h')}
          UNION ALL SELECT user_id, answered_at, private FROM question_choice_vote_history h
            WHERE answered_at >= ${from} AND answered_at < ${to} AND ${released('h')}
        ), days AS (
          SELECT ${bucketOf(interval, 'at')} AS bucket, count(*) FILTER (WHERE NOT private)::int AS public_count,
            count(*) FILTER (WHERE private)::int AS private_count
          FROM answers GROUP BY 1, date_trunc('day', at AT TIME ZONE 'UTC')
        ), people AS (
          SELECT ${bucketOf(interval, 'at')} AS bucket, count(DISTINCT user_id)::int AS people,
            count(DISTINCT user_id) FILTER (WHERE NOT private)::int AS public_people,
            count(DISTINCT user_id) FILTER (WHERE private)::int AS private_people
          FROM answers GROUP BY 1
        )
        SELECT p.bucket, p.people, p.public_people, p.private_people,
          array_agg(d.public_count) AS public_counts, array_agg(d.private_count) AS private_counts
        FROM people p JOIN days d ON d.bucket = p.bucket
        GROUP BY p.bucket, p.people, p.public_people, p.private_people`.execute(db)
      return rows
    },

    async newQuestions(interval: Interval, from: Date, to: Date): Promise<Bucketed[]> {
      const { rows } = await sql<Bucketed>`
        SELECT ${bucketOf(interval, 'created_at')} AS bucket, count(*)::int AS count FROM questions
        WHERE publish AND created_at >= ${from} AND created_at < ${to} GROUP BY 1`.execute(db)
      return rows
    },

    async newComments(interval: Interval, from: Date, to: Date): Promise<Bucketed[]> {
      const { rows } = await sql<Bucketed>`
        SELECT ${bucketOf(interval, 'created_at')} AS bucket, count(*)::int AS count FROM comments
        WHERE NOT is_hidden AND created_at >= ${from} AND created_at < ${to} GROUP BY 1`.execute(db)
      return rows
    },
  }
}
