import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, TeamMessages } from '../../db/database.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'

export type TeamMessageRow = Selectable<TeamMessages>

const ORDERING = { created_at: column('team_messages.created_at'), id: column('team_messages.id') }

/** Messages written to the team. */
export function teamMessagesRepository(db: Kysely<Database>) {
  return {
    /** Newest first unless ordered otherwise. */
    async page(list: ListRequest): Promise<RowsPage<TeamMessageRow>> {
      const ordering = orderingTerms(list.ordering, ORDERING, ['-created_at'], column('team_messages.id'))
      return pageOfRows<TeamMessageRow>(list, db.selectFrom('team_messages'), (q) => q.selectAll(), ordering)
    },

    /** The e-mail address and name a signed-in writer replies from. */
    async sender(userId: number): Promise<{ email: string | null; username: string } | undefined> {
      return db.selectFrom('users').select(['email', 'username']).where('id', '=', userId).executeTakeFirst()
    },

    async add(values: { user_id: number | null; email: string; subject: string; body: string }): Promise<TeamMessageRow> {
      return db.insertInto('team_messages').values(values).returningAll().executeTakeFirstOrThrow()
    },

    async markSent(id: number): Promise<TeamMessageRow> {
      return db
        .updateTable('team_messages')
        .set({ sent_at: sql<Date>`now()` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
    },
  }
}
