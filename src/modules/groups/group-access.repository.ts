import type { Kysely } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import type { Database } from '../../db/database.ts'

/**
 * Who administers a group: its owner and the members with the admin role. Staff may do whatever an
 * administrator may.
 */
export function groupAccess(db: Kysely<Database>) {
  /** Ids of the groups the user administers, as a subquery. */
  const administeredBy = (userId: number) =>
    db
      .selectFrom('group_memberships')
      .select('group_memberships.group_id')
      .where('group_memberships.user_id', '=', userId)
      .where('group_memberships.role', '=', 'admin')
      .union(db.selectFrom('groups').select('groups.id as group_id').where('groups.owner_id', '=', userId))

  return {
    administeredBy,

    /** Which of these groups the user administers, in one statement. */
    async administered(userId: number | null, groupIds: number[]): Promise<Set<number>> {
      const unique = [...new Set(groupIds)]
      if (userId === null || unique.length === 0) return new Set()
      const rows = await db
        .selectFrom('groups')
        .select('groups.id')
        .where('groups.id', 'in', unique)
        .where((eb) =>
          eb.or([
            eb('groups.owner_id', '=', userId),
            eb.exists(
              eb
                .selectFrom('group_memberships as gm')
                .select('gm.id')
                .whereRef('gm.group_id', '=', 'groups.id')
                .where('gm.user_id', '=', userId)
                .where('gm.role', '=', 'admin'),
            ),
          ]),
        )
        .execute()
      return new Set(rows.map((row) => row.id))
    },

    async administers(caller: Caller, groupId: number): Promise<boolean> {
      if (caller.isStaff) return true
      return (await this.administered(caller.id, [groupId])).has(groupId)
    },

    /**
     * The user an owner check compares the caller with: the caller when they administer the group, else
     * its owner (null when it has none); undefined when there is no such group.
     */
    async controller(groupId: number, callerId: number): Promise<number | null | undefined> {
      const row = await db.selectFrom('groups').select(['id', 'owner_id']).where('id', '=', groupId).executeTakeFirst()
      if (!row) return undefined
      if (row.owner_id === callerId) return callerId
      return (await this.administered(callerId, [groupId])).has(groupId) ? callerId : row.owner_id
    },
  }
}
