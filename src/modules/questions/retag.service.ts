import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import { recordRetag, tagOrder } from '../../engines/liquid/liquid.retag.ts'
import { questionCounters } from './question-counters.repository.ts'

/**
 * The one way a question's tags change, inside a transaction that holds the question's lock: the tags it carries
 * and their order before, the tag rows locked in id order (those it carries and those the write adds, as answering
 * transactions lock them), the write, then the tags' counters moved and the change recorded for the liquid engine.
 */
export async function retagQuestion<T>(
  trx: Transaction<Database>,
  questionId: number,
  userId: number,
  adding: Iterable<number>,
  write: () => Promise<T>,
): Promise<T> {
  const counters = questionCounters(trx)
  const before = await counters.carriedTags(questionId)
  const order = await tagOrder(trx, questionId)
  await counters.lockTags([...before, ...adding])
  const written = await write()
  await counters.retag(questionId, before, await counters.carriedTags(questionId))
  await recordRetag(trx, questionId, userId, order)
  return written
}
