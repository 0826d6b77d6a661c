import { sql, type Kysely } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { Slot } from './social.providers.ts'

/** The provider identities linked to accounts (one per provider slot and subject). */
export function socialAccountsRepository(db: Kysely<Database>) {
  return {
    /** The user an identity is linked to. */
    async linkedUser(slot: Slot, subject: string) {
      return db
        .selectFrom('social_accounts')
        .innerJoin('users', 'users.id', 'social_accounts.user_id')
        .select(['users.id', 'users.email', 'users.is_deleted'])
        .where('social_accounts.provider', '=', slot)
        .where('social_accounts.subject', '=', subject)
        .executeTakeFirst()
    },

    /** A sign-in through a linked identity: when, and the address the provider gave this time. */
    async signedIn(slot: Slot, subject: string, email: string | null): Promise<void> {
      await db
        .updateTable('social_accounts')
        .set({ last_login_at: sql`now()`, email })
        .where('provider', '=', slot)
        .where('subject', '=', subject)
        .execute()
    },

    async link(userId: number, slot: Slot, subject: string, email: string | null): Promise<void> {
      await db.insertInto('social_accounts').values({ user_id: userId, provider: slot, subject, email }).execute()
    },

    /** Usernames (in lower case) that start with this base, so that a new one can be the first free. */
    async usernamesStartingWith(base: string): Promise<Set<string>> {
      const rows = await db
        .selectFrom('users')
        .select(sql<string>`lower(username)`.as('name'))
        .where(sql<boolean>`starts_with(lower(username), ${base.toLowerCase()})`)
        .execute()
      return new Set(rows.map((row) => row.name))
    },
  }
}
