import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import { rebuildQuestionLiquid } from './liquid.rebuild.ts'
import { liquidRepository } from './liquid.repository.ts'

/**
 * Tags decide which tag delegations apply to a question, so editing them re-routes delegated weight
 * (R12). The caller holds the question's lock: read the order before the edit, then call `recorded`
 * after it. Every change is logged, and the question is resolved again in full.
 */
export async function tagOrder(trx: Transaction<Database>, questionId: number): Promise<number[]> {
  return liquidRepository(trx).tagOrder(questionId)
}

export async function recordRetag(trx: Transaction<Database>, questionId: number, userId: number, before: number[]): Promise<void> {
  const repository = liquidRepository(trx)
  const after = await repository.tagOrder(questionId)
  if (before.length === after.length && before.every((tag, i) => tag === after[i])) return
  const answered = await repository.answered(questionId)
  await repository.recordTagChange(questionId, userId, before, after, answered)
  // Other tags, other delegations: answered, its weights move; answered or not, the blocks kept (migration 031)
  // are counted anew, so that a large trustee's first answer finds theirs.
  await rebuildQuestionLiquid(trx, questionId, true)
}
