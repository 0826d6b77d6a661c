import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, ValidationFailed, type FieldErrors, invalidPk } from '../../core/errors.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { withLiquidEffects } from '../../engines/liquid/liquid.effects.ts'
import { visibleQuestion } from '../../access/question-access.ts'
import { checkTrustee, lockDelegator, revokedError, SELF_DELEGATION } from './delegation-rules.ts'
import { questionDelegationsRepository, type QuestionDelegationRow } from './question-delegations.repository.ts'
import type { QuestionDelegationCreate, QuestionDelegationUpdate } from './question-delegations.schemas.ts'

/**
 * Question delegation writes, the same way as tag delegations: never deleted, revoked; a new trustee
 * revokes and inserts; each write moves the question's liquid figures in its own transaction.
 */

function guarded<T>(body: { question?: number; trustee?: number | null }, work: () => Promise<T>): Promise<T> {
  return refusingViolations(work, {
    missing: (constraint): FieldErrors =>
      constraint.endsWith('question_id_fkey') && body.question !== undefined
        ? { question: [invalidPk(body.question)] }
        : { trustee: [invalidPk(body.trustee)] },
    check: { trustee: [SELF_DELEGATION] },
  })
}

/** A delegation (or a block) on one question the caller can see; it replaces their active one there. */
export async function createQuestionDelegation(
  db: Kysely<Database>,
  caller: Caller,
  body: QuestionDelegationCreate,
): Promise<QuestionDelegationRow> {
  const errors: FieldErrors = {}
  if (!(await visibleQuestion(db, caller, body.question))) errors.question = [invalidPk(body.question)]
  await checkTrustee(db, caller.id, body.trustee, errors)
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return guarded(body, () =>
    db.transaction().execute(async (trx) =>
      withLiquidEffects(trx, caller.id, [body.question], async () => {
        await lockDelegator(trx, caller.id)
        const rows = questionDelegationsRepository(trx)
        const current = await rows.active(caller.id, body.question)
        if (current) await rows.revoke(current.id)
        return rows.insert({ user_id: caller.id, question_id: body.question, trustee_id: body.trustee })
      }),
    ),
  )
}

/** PATCH {trustee}: a different trustee revokes the row and answers the new one; the same (or none) answers the row as it is. */
export async function updateQuestionDelegation(
  db: Kysely<Database>,
  id: number,
  body: QuestionDelegationUpdate,
): Promise<QuestionDelegationRow> {
  const row = await questionDelegationsRepository(db).find(id)
  if (!row) throw NotFound()
  if (row.revoked_at !== null) throw revokedError()
  if (body.trustee === undefined || body.trustee === row.trustee_id) return row
  const errors: FieldErrors = {}
  await checkTrustee(db, row.user_id, body.trustee, errors)
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return guarded({ trustee: body.trustee }, () =>
    db.transaction().execute(async (trx) =>
      withLiquidEffects(trx, row.user_id, [row.question_id], async () => {
        await lockDelegator(trx, row.user_id)
        const rows = questionDelegationsRepository(trx)
        if (!(await rows.revoke(row.id))) throw revokedError()
        return rows.insert({ user_id: row.user_id, question_id: row.question_id, trustee_id: body.trustee ?? null })
      }),
    ),
  )
}

/** DELETE: revokes the delegation; the row stays in the history. */
export async function revokeQuestionDelegation(db: Kysely<Database>, id: number): Promise<void> {
  const row = await questionDelegationsRepository(db).find(id)
  if (!row) throw NotFound()
  if (row.revoked_at !== null) throw revokedError()
  await db.transaction().execute(async (trx) =>
    withLiquidEffects(trx, row.user_id, [row.question_id], async () => {
      await lockDelegator(trx, row.user_id)
      if (!(await questionDelegationsRepository(trx).revoke(row.id))) throw revokedError()
    }),
  )
}
