import type { Kysely, Transaction } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import { NotFound, ValidationFailed, type FieldErrors, invalidPk } from '../../core/errors.ts'
import type { Database } from '../../db/database.ts'
import { activeUserExists } from '../users/user-summaries.ts'
import type { Db } from '../../db/types.ts'
import { usersRepository } from '../users/users.repository.ts'

/** The rules tag and question delegations share: who may be a trustee, who may see one, the order of locks. */

export const SELF_DELEGATION = 'You cannot delegate to yourself.'
export const REVOKED = 'This delegation has been revoked; it can no longer be changed.'

export const revokedError = () => ValidationFailed({ non_field_errors: [REVOKED] })

/**
 * A trustee must be someone else with an active, undeleted account; null (a block) is always fine.
 * Adds the refusal to `errors` under `trustee`.
 */
export async function checkTrustee(db: Db, delegatorId: number, trusteeId: number | null | undefined, errors: FieldErrors): Promise<void> {
  if (trusteeId === null || trusteeId === undefined) return
  if (trusteeId === delegatorId) errors.trustee = [SELF_DELEGATION]
  else if (!(await activeUserExists(db as Kysely<Database>, trusteeId))) errors.trustee = [invalidPk(trusteeId)]
}

/**
 * Serialises one user's delegation writes (two at once on the same tag or question, or a reorder
 * meeting a new delegation). Taken inside the liquid write, after the questions' locks, the order
 * every answer write follows too (questions, then the user row).
 */
export async function lockDelegator(trx: Transaction<Database>, userId: number): Promise<void> {
  await usersRepository(trx).lock(userId)
}

const OFF_VALUES = new Set(['', '0', 'false', 'f', 'no', 'n', 'off'])

/** `history=1` (or true, yes, on): revoked delegations are listed too. */
export function historyOn(value: string | undefined): boolean {
  return value !== undefined && !OFF_VALUES.has(value.trim().toLowerCase())
}

/** 404 unless the caller is the delegating user or staff: others' delegations do not exist for them. */
export function ownOrStaff<Row extends { user_id: number }>(caller: Caller, row: Row | undefined): Row {
  if (!row || (row.user_id !== caller.id && !caller.isStaff)) throw NotFound()
  return row
}
