import { sql, type RawBuilder } from 'kysely'
import { countColumns, familyCounts, familyFromRow, type FamilyTally } from '../statistics/tally.ts'
import { untyped, type Db } from '../../db/types.ts'
import { lockQuestionAnswers } from '../../db/answer-gate.ts'

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
export type Standing = { answered: true; carries: boolean; slot: Slot } | { answered: false; representative: Slot | null; chain?: Chain }

/** The users a chain passes from someone's own delegation, the answer it reaches included (liquid_chain, migration 031). */
export interface Chain {
  path: number[]
  /** It came back to someone on it. */
  looped: boolean
}

interface StandingRow {
  question_id: number
  carries: boolean | null
  path?: number[] | null
  looped?: boolean | null
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
  if (row.carries !== null) return { answered: true, carries: row.carries, slot: slot! }
  const chain = row.path ? { path: row.path.map(Number), looped: row.looped === true } : undefined
  return { answered: false, representative: slot, chain }
}

/** A row of liquid_block (migration 027): the block, and the representative's answer as a standing row. */
export type BlockRow = StandingRow & { intree: number; eligible: boolean }

export function blockOf(row: BlockRow): Block {
  const standing = toStanding(row)
  return {
    intree: Number(row.intree),
    eligible: row.eligible,
    representative: standing.answered ? null : standing.representative,
  }
}

export function liquidRepository(db: Db) {
  return {
    /**
     * The user's standing on each question, in one statement (the chain walks run in the database): without an answer,
     * the chain their delegation follows and the answer it reaches, if that answer carries weight.
     */
    async standings(questionIds: number[], userId: number): Promise<Map<number, Standing>> {
      if (questionIds.length === 0) return new Map()
      const { rows } = await sql<StandingRow>`
        SELECT q.id AS question_id, r.carries, ch.path, ch.looped, a.vote_table, a.vote_id, a.target_id, a.value, a.skipped, a.weight
        FROM unnest(${sql.val(questionIds)}::integer[]) AS q(id)
        CROSS JOIN LATERAL (SELECT liquid_answer_carries(q.id, ${userId}) AS carries) AS c
        LEFT JOIN LATERAL (SELECT * FROM liquid_chain(q.id, ${userId})) AS ch ON c.carries IS NULL
        CROSS JOIN LATERAL (
          SELECT c.carries, CASE WHEN c.carries IS NULL THEN ch.holder ELSE ${userId}::integer END AS holder
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
      } = await sql<BlockRow>`SELECT ${extra ?? sql`NULL AS none`}, b.* FROM liquid_block(${questionId}, ${userId}) AS b`.execute(db)
      return { ...blockOf(row), extra: row as unknown as E }
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

    /**
     * The user's block leaves (-1) or joins (1) the kept block sizes along chains their standings walked (migration
     * 035): around a change of their delegations or eligibility.
     */
    async followKeptBlocks(userId: number, moves: { questionId: number; chain: Chain; sign: -1 | 1 }[]): Promise<void> {
      const walked = moves.filter((move) => move.chain.path.length > 0)
      if (walked.length === 0) return
      const rows = sql.join(
        walked.map(
          (m) => sql`(${m.questionId}::integer, ${sql.val(m.chain.path)}::integer[], ${m.chain.looped}::boolean, ${m.sign}::integer)`,
        ),
      )
      await sql`SELECT liquid_blocks_follow(m.q, ${userId}, m.path, m.looped, m.sign)
        FROM (VALUES ${rows}) AS m(q, path, looped, sign)`.execute(db)
    },

    /** Adds to the liquid weight of vote rows. */
    async addWeights(table: Slot['voteTable'], deltas: Map<number, number>): Promise<void> {
      await this.addingWeights(table, deltas)?.execute(db)
    },

    /** The update that adds to the liquid weight of vote rows, not yet run (null: nothing to add). */
    addingWeights(table: Slot['voteTable'], deltas: Map<number, number>): RawBuilder<unknown> | null {
      const entries = [...deltas].filter(([, delta]) => delta !== 0)
      if (entries.length === 0) return null
      const values = sql.join(entries.map(([id, delta]) => sql`(${id}::integer, ${delta}::integer)`))
      return sql`UPDATE ${sql.table(table)} AS v SET liquid_weight = v.liquid_weight + d.delta
        FROM (VALUES ${values}) AS d(id, delta) WHERE v.id = d.id`
    },

    /** Sets the liquid weight of vote rows. */
    async setWeights(table: Slot['voteTable'], weights: Map<number, number>): Promise<void> {
      if (weights.size === 0) return
      const values = sql.join([...weights].map(([id, weight]) => sql`(${id}::integer, ${weight}::integer)`))
      await sql`UPDATE ${sql.table(table)} AS v SET liquid_weight = d.weight
        FROM (VALUES ${values}) AS d(id, weight) WHERE v.id = d.id AND v.liquid_weight <> d.weight`.execute(db)
    },

    /** The liquid counts of rows carrying figures, with their answers' deltas folded in, locked in id order. */
    async lockLiquid(target: Slot['target'], ids: number[]): Promise<Map<number, FamilyTally>> {
      const unique = [...new Set(ids)].sort((a, b) => a - b)
      if (unique.length === 0) return new Map()
      // The counts are moved from what they hold: the answers' deltas of their questions join them first (the
      // questions' gate is held, so no new delta comes).
      const questions =
        target === 'questions'
          ? sql`${unique}::integer[]`
          : sql`ARRAY(SELECT DISTINCT question_id FROM question_choices WHERE id = ANY(${unique}::integer[]))`
      await sql`SELECT fold_figure_deltas(true, ${questions})`.execute(db)
      const rows = await untyped(db)
        .selectFrom(target)
        .select(['id', ...countColumns('liquid')])
        .where('id', 'in', unique)
        .orderBy('id')
        .forUpdate()
        .execute()
      return new Map(rows.map((row: Record<string, unknown>) => [Number(row.id), familyFromRow(row, 'liquid')]))
    },

    /** Stores a liquid family's counts (its figures and the polarisation are generated from them). */
    async storeLiquid(target: Slot['target'], id: number, family: FamilyTally): Promise<void> {
      await untyped(db).updateTable(target).set(familyCounts('liquid', family)).where('id', '=', id).execute()
    },

    /** Locks these questions (every question when null) in id order, as every writer of a question's answers does. */
    async lockQuestions(questionIds: number[] | null): Promise<void> {
      if (questionIds !== null && questionIds.length === 0) return
      await lockQuestionAnswers(db, questionIds)
      let query = db.selectFrom('questions').select('id')
      if (questionIds !== null) query = query.where('id', 'in', questionIds)
      await query.orderBy('id').forUpdate().execute()
    },

    /** Whether the account is active and undeleted (null: no such account). */
    async eligibility(userId: number): Promise<{ is_active: boolean; is_deleted: boolean } | undefined> {
      return db.selectFrom('users').select(['is_active', 'is_deleted']).where('id', '=', userId).executeTakeFirst()
    },

    /** Questions carrying any of these tags. */
    async questionsWithTags(tagIds: number[]): Promise<number[]> {
      const rows = await db.selectFrom('question_tags').select('question_id').distinct().where('tag_id', 'in', tagIds).execute()
      return rows.map((row) => row.question_id)
    },

    /** Questions the user answered or their active delegations reach. */
    async questionsTouchedByUser(userId: number): Promise<number[]> {
      const { rows } = await sql<{ question_id: number }>`
        SELECT question_id FROM question_votes WHERE user_id = ${userId}
        UNION SELECT question_id FROM question_choice_votes WHERE user_id = ${userId}
        UNION SELECT question_id FROM question_delegations WHERE user_id = ${userId} AND revoked_at IS NULL
        UNION SELECT qt.question_id FROM tag_delegations td JOIN question_tags qt ON qt.tag_id = td.tag_id
          WHERE td.user_id = ${userId} AND td.revoked_at IS NULL`.execute(db)
      return rows.map((row) => row.question_id)
    },

    /** The question's tags in order. */
    async tagOrder(questionId: number): Promise<number[]> {
      const rows = await db
        .selectFrom('question_tags')
        .select('tag_id')
        .where('question_id', '=', questionId)
        .orderBy('position')
        .orderBy('id')
        .execute()
      return rows.map((row) => row.tag_id)
    },

    /** Whether the question holds any answer. */
    async answered(questionId: number): Promise<boolean> {
      const rows = await db
        .selectFrom('question_votes')
        .select('id')
        .where('question_id', '=', questionId)
        .union(db.selectFrom('question_choice_votes').select('id').where('question_id', '=', questionId))
        .limit(1)
        .execute()
      return rows.length > 0
    },

    /** Logs a change of the question's tags. */
    async recordTagChange(questionId: number, userId: number, before: number[], after: number[], answered: boolean): Promise<void> {
      await db
        .insertInto('question_tag_changes')
        .values({ question_id: questionId, user_id: userId, tags_before: before, tags_after: after, answered })
        .execute()
    },
  }
}
