import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import { rebuildQuestionLiquid } from './liquid.rebuild.ts'

/**
 * Tags decide which tag delegations apply to a question, so editing them re-routes delegated weight
 * (R12). The caller holds the question's lock: read the order before the edit, then call `recorded`
 * after it. Every change is logged; on an answered question the question is resolved again in full.
 */
export async function tagOrder(trx: Transaction<Database>, questionId: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('question_tags')
    .select('tag_id')
    .where('question_id', '=', questionId)
    .orderBy('position')
    .orderBy('id')
    .execute()
  return rows.map((row) => row.tag_id)
}

export async function recordRetag(trx: Transaction<Database>, questionId: number, userId: number, before: number[]): Promise<void> {
  const after = await tagOrder(trx, questionId)
  if (before.length === after.length && before.every((tag, i) => tag === after[i])) return
  const answered = await trx
    .selectFrom('question_votes')
    .select('id')
    .where('question_id', '=', questionId)
    .union(trx.selectFrom('question_choice_votes').select('id').where('question_id', '=', questionId))
    .limit(1)
    .execute()
  await trx
    .insertInto('question_tag_changes')
    .values({ question_id: questionId, user_id: userId, tags_before: before, tags_after: after, answered: answered.length > 0 })
    .execute()
  if (answered.length > 0) await rebuildQuestionLiquid(trx, questionId, true)
}
