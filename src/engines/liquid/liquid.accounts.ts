import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import { questionsTouchedByUser, withLiquidEffects } from './liquid.effects.ts'
import { liquidRepository } from './liquid.repository.ts'

/**
 * Only active, undeleted accounts give or receive delegated weight (R9). Runs a write to an account
 * that may change that, moving the weight that depends on it in the same transaction. A write that
 * leaves the account as eligible as it was (a sign-in of an active user) costs one look-up.
 */
export async function withEligibility(
  db: Kysely<Database>,
  userId: number,
  becomesEligible: boolean,
  write: (db: Kysely<Database>) => Promise<void>,
): Promise<void> {
  const current = await liquidRepository(db).eligibility(userId)
  if (!current || (current.is_active && !current.is_deleted) === becomesEligible) return write(db)
  const run = async (trx: Transaction<Database>) =>
    withLiquidEffects(trx, userId, await questionsTouchedByUser(trx, userId), () => write(trx))
  if (db.isTransaction) return run(db as Transaction<Database>)
  return db.transaction().execute(run)
}
