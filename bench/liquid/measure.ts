import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { liquidRepository } from '../../src/engines/liquid/liquid.repository.ts'
import { questionsWithTags, withLiquidEffects } from '../../src/engines/liquid/liquid.effects.ts'
import { loadBatch, loadTagDelegations, resolveQuestions } from '../../src/engines/liquid/liquid.rebuild.ts'

/** Timings of the liquid engine on a generated database; every change is rolled back, so runs repeat. */
export const seconds = (ms: number) => ms / 1000
class RolledBack extends Error {}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now()
  const result = await work()
  return { ms: performance.now() - started, result }
}

/** Runs work in a transaction and rolls it back; returns what it measured. */
export async function rolledBack<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  let out: T | undefined
  try {
    await db.transaction().execute(async (trx) => {
      out = await work(trx)
      throw new RolledBack()
    })
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error
  }
  return out as T
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/**
 * The lower bound of a resolution: the same reads (the tag delegations, then each batch's answers and
 * question delegations) and one pass over every applicable element with a membership probe, nothing more.
 */
export async function lowerBound(db: Transaction<Database>, questionIds: number[] | null): Promise<{ elements: number }> {
  const ids = questionIds ?? (await db.selectFrom('questions').select('id').orderBy('id').execute()).map((row) => row.id)
  const tagIds =
    questionIds === null
      ? null
      : (await db.selectFrom('question_tags').select('tag_id').distinct().where('question_id', 'in', ids).execute()).map(
          (row) => row.tag_id,
        )
  const lists = await loadTagDelegations(db, tagIds)
  const maxUser = Number(
    (
      await db
        .selectFrom('users')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirstOrThrow()
    ).max,
  )
  const seen = new Int32Array(maxUser + 1)
  let stamp = 0
  let elements = 0
  let probe = 0
  for (let start = 0; start < ids.length; start += 100) {
    const batch = ids.slice(start, start + 100)
    const loaded = await loadBatch(db, batch)
    for (const questionId of batch) {
      stamp++
      for (const answer of loaded.answers.get(questionId) ?? []) seen[answer.user_id] = stamp
      elements += loaded.answers.get(questionId)?.length ?? 0
      for (const row of loaded.delegations.get(questionId) ?? []) probe += seen[row.user_id] === stamp ? 1 : 0
      elements += loaded.delegations.get(questionId)?.length ?? 0
      for (const tag of loaded.tags.get(questionId) ?? []) {
        const list = lists.get(tag.tag_id)
        if (!list) continue
        for (let j = 0; j < list.users.length; j++) probe += seen[list.users[j]] === stamp ? 1 : 0
        elements += list.users.length
      }
    }
  }
  return { elements: elements + (probe & 0) }
}

/**
 * The engine's part of one new answer, as the vote path does it: the voter's block is read in the statement
 * that reads the clock and their default privacy anyway, so its cost is that statement's time less the same
 * statement without the block; then the weight taken from the answer the block counted at. The histogram
 * moves in the update of the question's figures the vote makes anyway.
 */
export async function answerChange(db: Kysely<Database>, questionId: number, userId: number, value: number | null) {
  return rolledBack(db, async (trx) => {
    await trx.selectFrom('questions').select('id').where('id', '=', questionId).forUpdate().execute()
    const columns = sql`clock_timestamp() AS now, (SELECT default_private FROM users WHERE id = ${userId}) AS default_private,
        (SELECT to_jsonb(v) FROM question_votes v WHERE v.user_id = ${userId} AND v.question_id = ${questionId} FOR UPDATE) AS current,
        EXISTS (SELECT FROM question_collections WHERE id = ${null}::integer) AS collection_exists`
    const plain = await timed(() => sql`SELECT ${columns}`.execute(trx))
    const context = await timed(() => liquidRepository(trx).block(questionId, userId, columns))
    const block = context.result
    // A public answer of an eligible account carries its whole block (cast_likert).
    const weight = block.eligible ? 1 + block.intree : 1
    // The kept block sizes along the voter's chain (migrations 031, 035): the insert's trigger does this work; timed
    // here on its own with a move of 0, which walks and updates the same rows.
    const kept = await timed(() =>
      sql`SELECT CASE WHEN EXISTS (SELECT FROM liquid_blocks WHERE question_id = ${questionId}::integer) THEN
        (SELECT liquid_blocks_follow(${questionId}::integer, ${userId}::integer, c.path, c.looped, 0)
         FROM liquid_chain(${questionId}::integer, ${userId}::integer) AS c) END`.execute(trx),
    )
    const insert = await timed(() =>
      trx
        .insertInto('question_votes')
        .values({ question_id: questionId, user_id: userId, value, skipped: value === null, liquid_weight: weight })
        .execute(),
    )
    // The block leaves the answer it counted at without this one.
    const slot = block.representative
    const moved = await timed(async () => {
      if (slot) await liquidRepository(trx).addWeights(slot.voteTable, new Map([[slot.voteId, -(1 + block.intree)]]))
    })
    return {
      engineMs: context.ms - plain.ms + moved.ms + kept.ms,
      keptMs: kept.ms,
      blockReadMs: context.ms,
      plainReadMs: plain.ms,
      insertMs: insert.ms,
      moved: block.representative !== null,
    }
  })
}

/** A tag delegation's trustee changes: every question carrying the tag is considered. */
export async function tagDelegationChange(db: Kysely<Database>, userId: number, tagId: number, trusteeId: number | null) {
  return rolledBack(db, async (trx) => {
    const questionIds = await questionsWithTags(trx, [tagId])
    const { ms } = await timed(() =>
      withLiquidEffects(trx, userId, questionIds, async () => {
        await trx
          .updateTable('tag_delegations')
          .set({ revoked_at: new Date() })
          .where('user_id', '=', userId)
          .where('tag_id', '=', tagId)
          .where('revoked_at', 'is', null)
          .execute()
        await trx.insertInto('tag_delegations').values({ user_id: userId, tag_id: tagId, trustee_id: trusteeId }).execute()
      }),
    )
    return { ms, questions: questionIds.length }
  })
}

/** What recomputing some questions in full costs (read and resolve, nothing written). */
export async function recomputeCost(db: Kysely<Database>, questionIds: number[]): Promise<number> {
  return rolledBack(db, async (trx) => (await timed(() => resolveQuestions(trx, questionIds, false))).ms)
}

export async function lowerBoundCost(db: Kysely<Database>, questionIds: number[] | null): Promise<{ ms: number; elements: number }> {
  return rolledBack(db, async (trx) => {
    const { ms, result } = await timed(() => lowerBound(trx, questionIds))
    return { ms, elements: result.elements }
  })
}

export async function largestQuestion(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{
    question_id: number
  }>`SELECT question_id FROM question_votes GROUP BY question_id ORDER BY count(*) DESC LIMIT 1`.execute(db)
  return rows[0].question_id
}
