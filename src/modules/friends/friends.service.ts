import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, ValidationFailed, fieldError, invalidPk } from '../../core/errors.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { friendsRepository, type FriendshipRow } from './friends.repository.ts'
import { notificationEvents } from '../../engines/notifications/notification-events.ts'

export const SELF = 'You cannot be friends with yourself.'
export const DELETED = 'This user has deleted their account.'
export const INACTIVE = 'This user has deactivated their account.'
export const ALREADY_FRIENDS = 'You are friends already.'
export const ALREADY_ASKED = 'You have asked this user already.'
export const NOT_PENDING = 'This friendship was accepted already: remove it with DELETE instead.'

const refused = (message: string) => ValidationFailed({ non_field_errors: [message] })

/**
 * The caller asks someone to be their friend. A pair has one row at most: when the other person has asked
 * the caller already, asking back accepts their request (`created` false) instead of making a second row.
 */
export async function requestFriend(
  db: Kysely<Database>,
  caller: Caller,
  friendId: number,
): Promise<{ row: FriendshipRow; created: boolean }> {
  if (friendId === caller.id) throw fieldError('friend', SELF)
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        const repository = friendsRepository(trx)
        const friend = (await repository.lockParties(caller.id, friendId)).find((party) => party.id === friendId)
        if (!friend) throw fieldError('friend', invalidPk(friendId))
        if (friend.is_deleted) throw fieldError('friend', DELETED)
        if (!friend.is_active) throw fieldError('friend', INACTIVE)
        const existing = await repository.between(caller.id, friendId)
        if (existing?.accepted_at) throw refused(ALREADY_FRIENDS)
        if (existing?.user_id === caller.id) throw refused(ALREADY_ASKED)
        if (existing) {
          const accepted = (await repository.accept(existing.id))!
          await repository.countFriends(accepted, 1)
          await notificationEvents.friendAccepted(trx, accepted)
          return { row: accepted, created: false }
        }
        const asked = await repository.insert(caller.id, friendId)
        await notificationEvents.friendRequested(trx, asked)
        return { row: asked, created: true }
      }),
    { unique: { non_field_errors: [ALREADY_ASKED] }, check: { friend: [SELF] }, missing: () => ({ friend: [invalidPk(friendId)] }) },
  )
}

/**
 * Runs one change of a friendship with both people's rows locked (see lockParties), so that it sees the
 * friendship as the last change to the pair left it. Not found: 404.
 */
async function withPairLocked<T>(
  db: Kysely<Database>,
  id: number,
  change: (repository: ReturnType<typeof friendsRepository>, trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const repository = friendsRepository(trx)
    const row = await repository.find(id)
    if (!row) throw NotFound()
    await repository.lockParties(row.user_id, row.friend_id)
    return change(repository, trx)
  })
}

/** The person asked accepts: both counters move once, however many times it is sent. */
export async function acceptFriendship(db: Kysely<Database>, id: number): Promise<FriendshipRow> {
  return withPairLocked(db, id, async (repository, trx) => {
    const accepted = await repository.accept(id)
    if (accepted) {
      await repository.countFriends(accepted, 1)
      await notificationEvents.friendAccepted(trx, accepted)
      return accepted
    }
    const current = await repository.find(id)
    if (!current) throw NotFound()
    return current
  })
}

/** The person asked declines: the request is deleted. An accepted friendship is removed with DELETE instead. */
export async function declineFriendship(db: Kysely<Database>, id: number): Promise<void> {
  await withPairLocked(db, id, async (repository) => {
    if (await repository.removePending(id)) return
    if (await repository.find(id)) throw refused(NOT_PENDING)
    throw NotFound()
  })
}

/** Either person removes a friendship, cancels their request or declines one; an accepted one moves the counters back. */
export async function removeFriendship(db: Kysely<Database>, id: number): Promise<void> {
  await withPairLocked(db, id, async (repository) => {
    const removed = await repository.remove(id)
    if (!removed) throw NotFound()
    if (removed.accepted_at) await repository.countFriends(removed, -1)
  })
}

/**
 * A deleted account leaves every friendship: its friends' counters drop at once. Locks every party, lower id first
 * like every other friendship write, reading the parties again until no new one appeared while waiting.
 */
export async function dropFriendshipsOf(db: Kysely<Database>, userId: number): Promise<void> {
  const repository = friendsRepository(db)
  const locked = new Set<number>()
  for (;;) {
    const parties = [userId, ...(await repository.partiesOf(userId))].filter((id) => !locked.has(id))
    if (parties.length === 0) break
    await repository.lockUsers([...locked, ...parties].sort((a, b) => a - b))
    for (const id of parties) locked.add(id)
  }
  await repository.removeAllOf(userId)
}
