import { sql } from 'kysely'
import { countColumns } from '../statistics/tally.ts'
import type { Slot } from './liquid.repository.ts'
import type { Db } from '../../db/types.ts'

/** The reads of a full resolution (liquid.rebuild.ts): every answer and delegation of a batch of questions at once. */
export interface AnswerRow {
  question_id: number
  vote_table: Slot['voteTable']
  id: number
  user_id: number
  target_id: number
  value: number | null
  skipped: boolean
  carries: boolean
  liquid_weight: number
}

export interface DelegationRow {
  user_id: number
  trustee_id: number | null
  priority: number
  id: number
}

export function liquidRebuildRepository(db: Db) {
  return {
    /** Active tag delegations by active accounts on these tags (all when null), after `after` in (tag, id) order. */
    async tagDelegations(tagIds: number[] | null, after: { tag: number; id: number }, limit: number) {
      const { rows } = await sql<DelegationRow & { tag_id: number }>`
        SELECT td.tag_id, td.user_id, td.trustee_id, td.priority, td.id
        FROM tag_delegations td JOIN users u ON u.id = td.user_id AND u.is_active AND NOT u.is_deleted
        WHERE td.revoked_at IS NULL AND (td.tag_id, td.id) > (${after.tag}, ${after.id})
          ${tagIds === null ? sql`` : sql`AND td.tag_id IN (${sql.join(tagIds.length ? tagIds : [-1])})`}
        ORDER BY td.tag_id, td.id LIMIT ${limit}`.execute(db)
      return rows
    },

    /**
     * The answers (with whether each carries delegated weight) of these questions; each weight with the deltas not
     * yet folded into it (migration 054), as every reader of a weight takes it.
     */
    async answers(questionIds: number[]): Promise<AnswerRow[]> {
      const ids = sql.join(questionIds)
      const { rows } = await sql<AnswerRow>`
        WITH pending AS (SELECT pick, vote_id, sum(delta)::integer AS delta FROM liquid_weight_deltas
          WHERE question_id IN (${ids}) GROUP BY pick, vote_id)
        SELECT v.question_id, 'question_votes' AS vote_table, v.id, v.user_id, v.question_id AS target_id, v.value, v.skipped,
               v.liquid_weight + coalesce(p.delta, 0) AS liquid_weight, (NOT v.private AND u.is_active AND NOT u.is_deleted) AS carries
        FROM question_votes v JOIN users u ON u.id = v.user_id LEFT JOIN pending p ON NOT p.pick AND p.vote_id = v.id
        WHERE v.question_id IN (${ids})
        UNION ALL
        SELECT v.question_id, 'question_choice_votes', v.id, v.user_id, v.choice_id, v.value, v.skipped,
               v.liquid_weight + coalesce(p.delta, 0), (NOT v.private AND u.is_active AND NOT u.is_deleted)
        FROM question_choice_votes v JOIN users u ON u.id = v.user_id LEFT JOIN pending p ON p.pick AND p.vote_id = v.id
        WHERE v.question_id IN (${ids})`.execute(db)
      return rows
    },

    /** Active question delegations by active accounts on these questions. */
    async questionDelegations(questionIds: number[]) {
      const { rows } = await sql<DelegationRow & { question_id: number }>`
        SELECT qd.question_id, qd.user_id, qd.trustee_id, 0 AS priority, qd.id
        FROM question_delegations qd JOIN users u ON u.id = qd.user_id AND u.is_active AND NOT u.is_deleted
        WHERE qd.question_id IN (${sql.join(questionIds)}) AND qd.revoked_at IS NULL`.execute(db)
      return rows
    },

    /** The tags of these questions, in each question's tag order. */
    questionTags(questionIds: number[]) {
      return db
        .selectFrom('question_tags')
        .select(['question_id', 'tag_id'])
        .where('question_id', 'in', questionIds)
        .orderBy('question_id')
        .orderBy('position')
        .orderBy('id')
        .execute()
    },

    /** The tags any of these questions carries, each once. */
    async tagsOf(questionIds: number[]): Promise<number[]> {
      const rows = await db.selectFrom('question_tags').select('tag_id').distinct().where('question_id', 'in', questionIds).execute()
      return rows.map((row) => row.tag_id)
    },

    /** The stored liquid counts of these questions and of their choices, with the answers' deltas not yet folded. */
    async storedLiquid(questionIds: number[]) {
      const counts = (table: string) =>
        countColumns('liquid')
          .map((c) => `${table}.${c} + coalesce(p.${c}, 0) AS ${c}`)
          .join(', ')
      const [questions, choices] = await Promise.all([
        sql<Record<string, unknown>>`SELECT questions.id, ${sql.raw(counts('questions'))} FROM questions
          LEFT JOIN pending_figure_counts p ON p.question_id = questions.id AND p.choice_id IS NULL
          WHERE questions.id = ANY(${questionIds}::integer[])`.execute(db),
        sql<Record<string, unknown>>`SELECT c.id, c.question_id, ${sql.raw(counts('c'))} FROM question_choices c
          LEFT JOIN pending_figure_counts p ON p.question_id = c.question_id AND p.choice_id = c.id
          WHERE c.question_id = ANY(${questionIds}::integer[])`.execute(db),
      ])
      return { questions: questions.rows, choices: choices.rows }
    },

    /** The kept block sizes of these questions (migration 031), with their deltas not yet folded (migration 054). */
    async keptBlocks(questionIds: number[]) {
      const { rows } = await sql<{ question_id: number; user_id: number; intree: number }>`
        SELECT b.question_id, b.user_id, b.intree + coalesce(p.delta, 0) AS intree
        FROM liquid_blocks b LEFT JOIN (SELECT question_id, user_id, sum(delta)::integer AS delta FROM liquid_block_deltas
          WHERE question_id IN (${sql.join(questionIds)}) GROUP BY question_id, user_id) AS p
          ON p.question_id = b.question_id AND p.user_id = b.user_id
        WHERE b.question_id IN (${sql.join(questionIds)})
        ORDER BY b.question_id, b.user_id`.execute(db)
      return rows
    },

    /** Replaces the kept block sizes of these questions. */
    async keepBlocks(questionIds: number[], blocks: { question_id: number; user_id: number; intree: number }[]): Promise<void> {
      await db.deleteFrom('liquid_blocks').where('question_id', 'in', questionIds).execute()
      for (let start = 0; start < blocks.length; start += 5_000) {
        await db
          .insertInto('liquid_blocks')
          .values(blocks.slice(start, start + 5_000))
          .execute()
      }
    },

    /** Every question id, in id order. */
    async questionIds(): Promise<number[]> {
      return (await db.selectFrom('questions').select('id').orderBy('id').execute()).map((row) => row.id)
    },

    /** The highest user id (0 without users): the size of the resolver's tables. */
    async maxUserId(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirstOrThrow()
      return Number(row.max ?? 0)
    },
  }
}
