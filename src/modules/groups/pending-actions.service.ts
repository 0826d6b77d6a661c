import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { NotFound, ValidationFailed } from '../../core/errors.ts'
import { groupsRepository } from './groups.repository.ts'
import { addMember } from './memberships/memberships.service.ts'

interface PendingRow {
  group_id: number
  user_id: number | null
}

/** How an invitation or a join request is answered: read it, settle it while pending, and what follows. */
export interface PendingAnswer<Row extends PendingRow> {
  find: (trx: Kysely<Database>) => Promise<Row | undefined>
  /** Refuses an answer the row cannot take (before anything is locked). */
  check?: (row: Row) => void
  /** Moves the row on while it is pending; undefined when it no longer was (a concurrent answer won). */
  settle: (trx: Kysely<Database>) => Promise<Row | undefined>
  notPending: string
  /** The person the row names becomes a member. */
  admits: boolean
  after?: (trx: Kysely<Database>, settled: Row) => Promise<void>
}

/** Answers a pending invitation or join request in one transaction. Only pending rows move. */
export async function answerPending<Row extends PendingRow>(db: Kysely<Database>, answer: PendingAnswer<Row>): Promise<Row> {
  return db.transaction().execute(async (trx) => {
    const row = await answer.find(trx)
    if (!row) throw NotFound()
    answer.check?.(row)
    // The group first: a concurrent deletion of the group then waits for this answer, or this answer for it.
    if (!(await groupsRepository(trx).lock(row.group_id, 'members'))) throw NotFound()
    const settled = await answer.settle(trx)
    if (!settled) throw ValidationFailed({ non_field_errors: [answer.notPending] })
    if (answer.admits) await addMember(trx, settled.group_id, settled.user_id!)
    await answer.after?.(trx, settled)
    return settled
  })
}
