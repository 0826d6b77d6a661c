import { sql, type RawBuilder } from 'kysely'
import { countColumns, familyFromRow, type FamilyTally } from '../statistics/compute/tally.ts'
import { familyColumns } from '../statistics/compute/tally.ts'
import { likertFigures, type LevelCounts } from '../statistics/compute/likert.ts'
import { untyped, type Db } from '../../db/types.ts'

/** A user's block on a question, read before their own answer changes (see liquid.answers.ts). */
export interface Block {
  /** Unanswered users whose chains pass through the user. */
  intree: number
  /** Whether the user's account may give or carry weight. */
  eligible: boolean
  /** The answer the user's own chain reaches without an answer of theirs (null: nowhere). */
  representative: Slot | null
}

/** Where an answer counts: the row carrying its figures, the level (null: a skip) and the vote row. */
export interface Slot {
  target: 'questions' | 'question_choices'
  targetId: number
  value: number | null
  voteTable: 'question_votes' | 'question_choice_votes'
  voteId: number
  weight: number
}

/**
 * A user's standing on a question: their own answer (and whether it carries delegated weight), or,
 * without one, the answer their weight reaches (null: it counts nowhere).
 */
export type Standing = { answered: true; carries: boolean; slot: Slot } | { answered: false; representative: Slot | null }

interface StandingRow {
  question_id: number
  carries: boolean | null
  vote_table: Slot['voteTable'] | null
  vote_id: number | null
  target_id: number | null
  value: number | null
  skipped: boolean | null
  weight: number | null
}

function toStanding(row: StandingRow): Standing {
  const slot: Slot | null =
    row.vote_id === null
      ? null
      : {
          target: row.vote_table === 'question_votes' ? 'questions' : 'question_choices',
          targetId: row.target_id!,
          value: row.skipped ? null : row.value,
          voteTable: row.vote_table!,
          voteId: row.vote_id,
          weight: row.weight!,
        }
  return row.carries === null ? { answered: false, representative: slot } : { answered: true, carries: row.carries, slot: slot! }
}

export function liquidRepository(db: Db) {
  return {
    /** The user's standing on each question, in one statement (the chain walks run in the database). */
    async standings(questionIds: number[], userId: number): Promise<Map<number, Standing>> {
      if (questionIds.length === 0) return new Map()
      const { rows } = await sql<StandingRow>`
        SELECT q.id AS question_id, r.carries, a.vote_table, a.vote_id, a.target_id, a.value, a.skipped, a.weight
        FROM unnest(${sql.val(questionIds)}::integer[]) AS q(id)
        CROSS JOIN LATERAL (SELECT liquid_answer_carries(q.id, ${userId}) AS carries) AS c
        CROSS JOIN LATERAL (
          SELECT c.carries, CASE WHEN c.carries IS NULL THEN liquid_representative(q.id, ${userId}) ELSE ${userId}::integer END AS holder
        ) AS r
        LEFT JOIN LATERAL (
          SELECT 'question_votes' AS vote_table, v.id AS vote_id, v.question_id AS target_id, v.value, v.skipped, v.liquid_weight AS weight
          FROM question_votes v WHERE v.question_id = q.id AND v.user_id = r.holder
          UNION ALL
          SELECT 'question_choice_votes', v.id, v.choice_id, v.value, v.skipped, v.liquid_weight
          FROM question_choice_votes v WHERE v.question_id = q.id AND v.user_id = r.holder
        ) AS a ON true`.execute(db)
      return new Map(rows.map((row) => [row.question_id, toStanding(row)]))
    },

    /**
     * In one statement: how many unanswered users' chains pass through the user, whether the user's account
     * may carry weight, and the answer the user's own chain reaches. None of it depends on the user's own
     * answer, so a writer can read it before changing that answer. `extra` adds columns a writer needs
     * anyway (the clock, the voter's defaults), so the read costs the vote path no round trip of its own.
     */
    async block<E extends Record<string, unknown> = Record<string, never>>(
      questionId: number,
      userId: number,
      extra?: RawBuilder<unknown>,
    ): Promise<Block & { extra: E }> {
      const {
        rows: [row],
      } = await sql<StandingRow & { intree: number; eligible: boolean }>`
        SELECT ${extra ?? sql`NULL AS none`}, liquid_intree(${questionId}, ${userId}) AS intree, liquid_eligible(${userId}) AS eligible,
               ${questionId}::integer AS question_id, NULL::boolean AS carries,
               a.vote_table, a.vote_id, a.target_id, a.value, a.skipped, a.weight
        FROM (SELECT liquid_representative(${questionId}, ${userId}) AS holder) AS r
        LEFT JOIN LATERAL (
          SELECT 'question_votes' AS vote_table, v.id AS vote_id, v.question_id AS target_id, v.value, v.skipped, v.liquid_weight AS weight
          FROM question_votes v WHERE v.question_id = ${questionId} AND v.user_id = r.holder
          UNION ALL
          SELECT 'question_choice_votes', v.id, v.choice_id, v.value, v.skipped, v.liquid_weight
          FROM question_choice_votes v WHERE v.question_id = ${questionId} AND v.user_id = r.holder
        ) AS a ON true`.execute(db)
      const standing = toStanding(row)
      return {
        intree: Number(row.intree),
        eligible: row.eligible,
        representative: standing.answered ? null : standing.representative,
        extra: row as unknown as E,
      }
    },

    /** How many unanswered users' chains pass through the user on each question. */
    async intrees(questionIds: number[], userId: number): Promise<Map<number, number>> {
      if (questionIds.length === 0) return new Map()
      const { rows } = await sql<{ question_id: number; size: number }>`
        SELECT q.id AS question_id, liquid_intree(q.id, ${userId}) AS size FROM unnest(${sql.val(questionIds)}::integer[]) AS q(id)`.execute(
        db,
      )
      return new Map(rows.map((row) => [row.question_id, Number(row.size)]))
    },

    /** Adds to the liquid weight of vote rows. */
    async addWeights(table: Slot['voteTable'], deltas: Map<number, number>): Promise<void> {
      const entries = [...deltas].filter(([, delta]) => delta !== 0)
      if (entries.length === 0) return
      const values = sql.join(entries.map(([id, delta]) => sql`(${id}::integer, ${delta}::integer)`))
      await sql`UPDATE ${sql.table(table)} AS v SET liquid_weight = v.liquid_weight + d.delta
        FROM (VALUES ${values}) AS d(id, delta) WHERE v.id = d.id`.execute(db)
    },

    /** Sets the liquid weight of vote rows. */
    async setWeights(table: Slot['voteTable'], weights: Map<number, number>): Promise<void> {
      if (weights.size === 0) return
      const values = sql.join([...weights].map(([id, weight]) => sql`(${id}::integer, ${weight}::integer)`))
      await sql`UPDATE ${sql.table(table)} AS v SET liquid_weight = d.weight
        FROM (VALUES ${values}) AS d(id, weight) WHERE v.id = d.id AND v.liquid_weight <> d.weight`.execute(db)
    },

    /** The liquid counts of rows carrying figures, locked in id order. */
    async lockLiquid(target: Slot['target'], ids: number[]): Promise<Map<number, FamilyTally>> {
      const unique = [...new Set(ids)].sort((a, b) => a - b)
      if (unique.length === 0) return new Map()
      const rows = await untyped(db)
        .selectFrom(target)
        .select(['id', ...countColumns('liquid')])
        .where('id', 'in', unique)
        .orderBy('id')
        .forUpdate()
        .execute()
      return new Map(rows.map((row: Record<string, unknown>) => [Number(row.id), familyFromRow(row, 'liquid')]))
    },

    /** Stores a liquid family and the polarisation derived from it. */
    async storeLiquid(target: Slot['target'], id: number, family: FamilyTally): Promise<void> {
      const columns = {
        ...familyColumns('liquid', family),
        polarisation: likertFigures(family.counts as unknown as LevelCounts).polarisation,
      }
      await untyped(db).updateTable(target).set(columns).where('id', '=', id).execute()
    },
  }
}
