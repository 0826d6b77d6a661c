import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import { countColumns, emptyFamily, familyFromRow, withAnswer, type FamilyTally } from '../statistics/compute/tally.ts'
import { resolveWeights, type ResolverDelegation } from './compute/resolve.ts'
import { liquidRepository, type Slot } from './liquid.repository.ts'

type Db = Kysely<Database> | Transaction<Database>

/**
 * Full resolution of a question: reads its answers and applicable delegations once, resolves them in
 * memory, and compares (or replaces) the stored weights and liquid figures. Rebuilds after edits of an
 * answered question's tags, and backs `recompute --liquid` and `check`.
 */
interface LoadedAnswer {
  vote_table: Slot['voteTable']
  id: number
  user_id: number
  target_id: number
  value: number | null
  skipped: boolean
  carries: boolean
  liquid_weight: number
}

export interface LiquidDifference {
  question: number
  what: string
  stored: number
  resolved: number
}

export async function loadQuestionGraph(db: Db, questionId: number) {
  const answers = await sql<LoadedAnswer>`
    SELECT 'question_votes' AS vote_table, v.id, v.user_id, v.question_id AS target_id, v.value, v.skipped, v.liquid_weight,
           (NOT v.private AND u.is_active AND NOT u.is_deleted) AS carries
    FROM question_votes v JOIN users u ON u.id = v.user_id WHERE v.question_id = ${questionId}
    UNION ALL
    SELECT 'question_choice_votes', v.id, v.user_id, v.choice_id, v.value, v.skipped, v.liquid_weight,
           (NOT v.private AND u.is_active AND NOT u.is_deleted)
    FROM question_choice_votes v JOIN users u ON u.id = v.user_id WHERE v.question_id = ${questionId}`.execute(db)
  const delegations = await sql<{ id: number; user_id: number; trustee_id: number | null; position: number | null; priority: number }>`
    SELECT qd.id, qd.user_id, qd.trustee_id, NULL::integer AS position, 0 AS priority
    FROM question_delegations qd JOIN users u ON u.id = qd.user_id AND u.is_active AND NOT u.is_deleted
    WHERE qd.question_id = ${questionId} AND qd.revoked_at IS NULL
    UNION ALL
    SELECT td.id, td.user_id, td.trustee_id, qt.position, td.priority
    FROM question_tags qt
    JOIN tag_delegations td ON td.tag_id = qt.tag_id AND td.revoked_at IS NULL
    JOIN users u ON u.id = td.user_id AND u.is_active AND NOT u.is_deleted
    WHERE qt.question_id = ${questionId}`.execute(db)
  return {
    answers: answers.rows,
    delegations: delegations.rows.map((row): ResolverDelegation => ({ id: row.id, userId: row.user_id, trusteeId: row.trustee_id, position: row.position, priority: row.priority })),
  }
}

/** Resolves one question; with `write`, stores what differs. Returns the differences found. */
export async function rebuildQuestionLiquid(db: Db, questionId: number, write: boolean): Promise<LiquidDifference[]> {
  const { answers, delegations } = await loadQuestionGraph(db, questionId)
  const weights = resolveWeights(answers.map((a) => ({ userId: a.user_id, carries: a.carries })), delegations)
  const differences: LiquidDifference[] = []
  const changed = { question_votes: new Map<number, number>(), question_choice_votes: new Map<number, number>() }
  const families = new Map<string, FamilyTally>()
  for (const answer of answers) {
    const weight = weights.get(answer.user_id)!
    if (weight !== answer.liquid_weight) {
      changed[answer.vote_table].set(answer.id, weight)
      differences.push({ question: questionId, what: `${answer.vote_table} ${answer.id} liquid_weight`, stored: answer.liquid_weight, resolved: weight })
    }
    const target = answer.vote_table === 'question_votes' ? `questions:${answer.target_id}` : `question_choices:${answer.target_id}`
    families.set(target, withAnswer(families.get(target) ?? emptyFamily(), answer.skipped ? null : answer.value, weight, 1))
  }
  const stored = await storedFamilies(db, questionId)
  const toStore: [Slot['target'], number, FamilyTally][] = []
  for (const [target, family] of stored) {
    const resolved = families.get(target) ?? emptyFamily()
    const [table, id] = target.split(':') as [Slot['target'], string]
    const storedCounts = [...family.counts, family.skipped]
    const resolvedCounts = [...resolved.counts, resolved.skipped]
    const names = countColumns('liquid')
    names.forEach((name, i) => {
      if (storedCounts[i] !== resolvedCounts[i]) differences.push({ question: questionId, what: `${table} ${id} ${name}`, stored: storedCounts[i], resolved: resolvedCounts[i] })
    })
    if (storedCounts.some((count, i) => count !== resolvedCounts[i])) toStore.push([table, Number(id), resolved])
  }
  if (write) {
    const repository = liquidRepository(db)
    await repository.setWeights('question_votes', changed.question_votes)
    await repository.setWeights('question_choice_votes', changed.question_choice_votes)
    for (const [table, id, family] of toStore) await repository.storeLiquid(table, id, family)
  }
  return differences
}

/** The stored liquid counts of the question and of each of its choices, keyed `table:id`. */
async function storedFamilies(db: Db, questionId: number): Promise<Map<string, FamilyTally>> {
  const columns = countColumns('liquid')
  const question = await (db as Kysely<any>).selectFrom('questions').select(['id', ...columns]).where('id', '=', questionId).execute()
  const choices = await (db as Kysely<any>).selectFrom('question_choices').select(['id', ...columns]).where('question_id', '=', questionId).orderBy('id').execute()
  return new Map([
    ...question.map((row: Record<string, unknown>) => [`questions:${row.id}`, familyFromRow(row, 'liquid')] as const),
    ...choices.map((row: Record<string, unknown>) => [`question_choices:${row.id}`, familyFromRow(row, 'liquid')] as const),
  ])
}

/**
 * Every question, in id order. Inside a transaction everything runs in it; otherwise each question is
 * resolved in a short transaction of its own (holding its lock when writing, a consistent snapshot when
 * only checking), so the service keeps serving meanwhile.
 */
export async function rebuildAllLiquid(db: Kysely<Database>, write: boolean, onQuestion?: (done: number, total: number) => void): Promise<LiquidDifference[]> {
  const ids = (await db.selectFrom('questions').select('id').orderBy('id').execute()).map((row) => row.id)
  const differences: LiquidDifference[] = []
  for (let i = 0; i < ids.length; i++) {
    differences.push(...(await rebuildOne(db, ids[i], write)))
    onQuestion?.(i + 1, ids.length)
  }
  return differences
}

async function rebuildOne(db: Kysely<Database>, id: number, write: boolean): Promise<LiquidDifference[]> {
  if (db.isTransaction) return rebuildQuestionLiquid(db, id, write)
  if (!write) return db.transaction().setIsolationLevel('repeatable read').execute((trx) => rebuildQuestionLiquid(trx, id, false))
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('questions').select('id').where('id', '=', id).forUpdate().execute()
    return rebuildQuestionLiquid(trx, id, true)
  })
}
