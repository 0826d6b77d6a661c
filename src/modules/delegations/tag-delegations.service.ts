import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, ValidationFailed, type FieldErrors, invalidPk } from '../../core/errors.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { questionsWithTags, withLiquidEffects } from '../../engines/liquid/liquid.effects.ts'
import { checkTrustee, lockDelegator, revokedError, SELF_DELEGATION } from './delegation-rules.ts'
import { tagDelegationsRepository, type TagDelegationRow } from './tag-delegations.repository.ts'
import type { TagDelegationCreate, TagDelegationUpdate } from './tag-delegations.schemas.ts'

/**
 * Tag delegation writes. Rows are never deleted: revoking sets revoked_at, and a new trustee revokes the
 * row and inserts another. Every write runs inside withLiquidEffects over the questions carrying the
 * tag, so the liquid figures move in the same transaction. Input is checked before it opens.
 */

/** Races the checks cannot see (a trustee removed meanwhile, a self-delegation) end as the check's 400. */
function guarded<T>(trusteeId: number | null | undefined, work: () => Promise<T>): Promise<T> {
  return refusingViolations(work, {
    missing: () => ({ trustee: [invalidPk(trusteeId)] }),
    check: { trustee: [SELF_DELEGATION] },
  })
}

/** A delegation (or a block) on a tag; it replaces the caller's active one on that tag, keeping its priority unless one is given. */
export async function createTagDelegation(db: Kysely<Database>, caller: Caller, body: TagDelegationCreate): Promise<TagDelegationRow> {
  const repository = tagDelegationsRepository(db)
  const errors: FieldErrors = {}
  if (!(await repository.tagExists(body.tag))) errors.tag = [invalidPk(body.tag)]
  await checkTrustee(db, caller.id, body.trustee, errors)
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return guarded(body.trustee, () =>
    db.transaction().execute(async (trx) =>
      withLiquidEffects(trx, caller.id, await questionsWithTags(trx, [body.tag]), async () => {
        await lockDelegator(trx, caller.id)
        const rows = tagDelegationsRepository(trx)
        const current = await rows.active(caller.id, body.tag)
        if (current) await rows.revoke(current.id)
        const priority = body.priority ?? current?.priority ?? (await rows.nextPriority(caller.id))
        return rows.insert({ user_id: caller.id, tag_id: body.tag, trustee_id: body.trustee, priority })
      }),
    ),
  )
}

/**
 * PATCH: a different trustee revokes the row and answers a new one (with the given priority, or this
 * one's); a priority alone changes the row in place; nothing new answers the row as it is.
 */
export async function updateTagDelegation(db: Kysely<Database>, id: number, body: TagDelegationUpdate): Promise<TagDelegationRow> {
  const row = await tagDelegationsRepository(db).find(id)
  if (!row) throw NotFound()
  if (row.revoked_at !== null) throw revokedError()
  const newTrustee = body.trustee !== undefined && body.trustee !== row.trustee_id
  const newPriority = body.priority !== undefined && body.priority !== row.priority
  if (newTrustee) {
    const errors: FieldErrors = {}
    await checkTrustee(db, row.user_id, body.trustee, errors)
    if (Object.keys(errors).length) throw ValidationFailed(errors)
  }
  if (!newTrustee && !newPriority) return row
  return guarded(body.trustee, () =>
    db.transaction().execute(async (trx) =>
      withLiquidEffects(trx, row.user_id, await questionsWithTags(trx, [row.tag_id]), async () => {
        await lockDelegator(trx, row.user_id)
        const rows = tagDelegationsRepository(trx)
        if (!newTrustee) {
          const updated = await rows.setPriority(row.id, body.priority!)
          if (!updated) throw revokedError()
          return updated
        }
        const revoked = await rows.revoke(row.id)
        if (!revoked) throw revokedError()
        return rows.insert({
          user_id: row.user_id,
          tag_id: row.tag_id,
          trustee_id: body.trustee ?? null,
          priority: body.priority ?? revoked.priority,
        })
      }),
    ),
  )
}

/** DELETE: revokes the delegation; the row stays in the history. */
export async function revokeTagDelegation(db: Kysely<Database>, id: number): Promise<void> {
  const row = await tagDelegationsRepository(db).find(id)
  if (!row) throw NotFound()
  if (row.revoked_at !== null) throw revokedError()
  await db.transaction().execute(async (trx) =>
    withLiquidEffects(trx, row.user_id, await questionsWithTags(trx, [row.tag_id]), async () => {
      await lockDelegator(trx, row.user_id)
      if (!(await tagDelegationsRepository(trx).revoke(row.id))) throw revokedError()
    }),
  )
}

const orderError = (messages: string[]) => ValidationFailed({ order: messages })

/** What is wrong with `order` as a new order of these active delegations; empty when it is right. */
function orderProblems(order: number[], active: TagDelegationRow[]): string[] {
  const problems: string[] = []
  const known = new Set(active.map((row) => row.id))
  const seen = new Set<number>()
  const repeated = new Set<number>()
  const unknown: number[] = []
  for (const id of order) {
    if (seen.has(id)) repeated.add(id)
    seen.add(id)
    if (!known.has(id) && !unknown.includes(id)) unknown.push(id)
  }
  for (const id of unknown) problems.push(`Invalid pk "${id}" - not one of your active tag delegations.`)
  for (const id of repeated) problems.push(`Delegation ${id} is listed more than once.`)
  const missing = active.filter((row) => !seen.has(row.id)).map((row) => row.id)
  if (missing.length) problems.push(`Every active tag delegation must be listed; missing: ${missing.join(', ')}.`)
  return problems
}

/** The new priority of each row whose priority changes: position i gets priority i. */
function changedPriorities(order: number[], rows: TagDelegationRow[]): Map<number, number> {
  const byId = new Map(rows.map((row) => [row.id, row]))
  const changes = new Map<number, number>()
  order.forEach((id, index) => {
    if (byId.get(id)!.priority !== index) changes.set(id, index)
  })
  return changes
}

/**
 * Sets priorities 0..n-1 in the order given, which lists each of the user's active tag delegations
 * exactly once; all or nothing. Only the tags whose delegation moves are passed to the liquid engine.
 */
export async function reorderTagDelegations(db: Kysely<Database>, caller: Caller, order: number[]): Promise<TagDelegationRow[]> {
  const active = await tagDelegationsRepository(db).activeOf(caller.id)
  const problems = orderProblems(order, active)
  if (problems.length) throw orderError(problems)
  const planned = changedPriorities(order, active)
  const tagOf = new Map(active.map((row) => [row.id, row.tag_id]))
  const tags = [...planned.keys()].map((id) => tagOf.get(id)!)
  return db.transaction().execute(async (trx) =>
    withLiquidEffects(trx, caller.id, await questionsWithTags(trx, tags), async () => {
      await lockDelegator(trx, caller.id)
      const rows = tagDelegationsRepository(trx)
      // Another write of this user may have landed between the check and the locks: check again.
      const now = await rows.activeOf(caller.id)
      if (orderProblems(order, now).length) throw orderError(['Your tag delegations changed meanwhile; send the order again.'])
      const changes = changedPriorities(order, now)
      const locked = new Set(tags)
      for (const id of changes.keys()) {
        if (!locked.has(now.find((row) => row.id === id)!.tag_id))
          throw orderError(['Your tag delegations changed meanwhile; send the order again.'])
      }
      await rows.setPriorities(changes)
      const after = new Map((await rows.activeOf(caller.id)).map((row) => [row.id, row]))
      return order.map((id) => after.get(id)!)
    }),
  )
}
