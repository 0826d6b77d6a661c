import type { Kysely } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import type { Database } from '../../db/database.ts'
import { NotFound, fieldError, invalidPk, uniqueSet } from '../../core/errors.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { activeUserExists } from '../users/user-summaries.ts'
import { followingUsersRepository, type FollowingUserRow } from './following-users.repository.ts'

const SELF = 'You cannot follow yourself.'

/** The caller follows someone; the unique constraint refuses a second link, the check constraint a link to oneself. */
export async function followUser(db: Kysely<Database>, caller: Caller, followingId: number): Promise<FollowingUserRow> {
  if (followingId === caller.id) throw fieldError('following', SELF)
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        if (!(await activeUserExists(trx, followingId))) throw fieldError('following', invalidPk(followingId))
        const repository = followingUsersRepository(trx)
        const row = await repository.insert(caller.id, followingId)
        await repository.count(row, 1)
        return row
      }),
    { unique: uniqueSet('user', 'following'), check: { following: [SELF] }, missing: () => ({ following: [invalidPk(followingId)] }) },
  )
}

export async function unfollowUser(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = followingUsersRepository(trx)
    const removed = await repository.remove(id)
    if (!removed) throw NotFound()
    await repository.count(removed, -1)
  })
}
