import type { Transaction } from 'kysely'
import { liquidRepository } from './liquid.repository.ts'
import type { Database } from '../../db/database.ts'
import { liquidChangeOf } from './liquid.engine.ts'
import type { Db } from '../../db/types.ts'

/**
 * Runs a write that may change where one user's weight goes on some questions (their delegations,
 * their eligibility), and moves the liquid figures accordingly, in the caller's transaction. The
 * questions are locked first, in id order, as every writer of a question's answers and tags does.
 */
export async function withLiquidEffects<T>(
  trx: Transaction<Database>,
  userId: number,
  questionIds: number[],
  write: () => Promise<T>,
): Promise<T> {
  const ids = [...new Set(questionIds)].sort((a, b) => a - b)
  await liquidRepository(trx).lockQuestions(ids)
  const pending = await liquidChangeOf(trx, ids, userId)
  const result = await write()
  await pending.apply()
  return result
}

/**
 * Questions carrying any of these tags: where a tag delegation can matter. Answered ones are included
 * on purpose: the answer may be withdrawn before the locks are taken, and an answered user's standing
 * costs one look-up.
 */
export async function questionsWithTags(db: Db, tagIds: number[]): Promise<number[]> {
  if (tagIds.length === 0) return []
  return liquidRepository(db).questionsWithTags(tagIds)
}

/**
 * Every question where the user's standing can depend on whether their account is active: those they
 * answered, and those their delegations reach.
 */
export async function questionsTouchedByUser(db: Db, userId: number): Promise<number[]> {
  return liquidRepository(db).questionsTouchedByUser(userId)
}
