import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, ShareableLinks } from '../../db/database.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { QUESTION_COLUMNS, questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import { signLink } from './link-tokens.ts'

export type LinkRow = Selectable<ShareableLinks>

export function shareableLinksRepository(db: Kysely<Database>) {
  return {
    /** The user's own links. */
    async page(userId: number, list: ListRequest): Promise<RowsPage<LinkRow>> {
      const ordering = orderingTerms(list.ordering, { created_at: column('created_at') }, ['-created_at'], column('id'))
      return pageOfRows(list, db.selectFrom('shareable_links').where('user_id', '=', userId), (q) => q.selectAll(), ordering)
    },

    /** The questions as the anonymous question detail reads them: published ones only. */
    async anonymousQuestions(ids: number[]): Promise<QuestionRow[]> {
      return (await questionsRepository(db)
        .filtered({ id__in: ids.join(',') }, null)
        .select(QUESTION_COLUMNS)
        .execute()) as QuestionRow[]
    },

    async find(id: number): Promise<LinkRow | undefined> {
      return db.selectFrom('shareable_links').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Creates the link and signs it with its own id, in one transaction. */
    async create(
      key: Buffer,
      values: { user_id: number; question_id: number | null; collection_id: number | null; target_url: string; days: number },
    ): Promise<LinkRow> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('shareable_links')
          .values({
            user_id: values.user_id,
            question_id: values.question_id,
            collection_id: values.collection_id,
            target_url: values.target_url,
            // Unique until signed, a statement later.
            code: sql<string>`'unsigned-' || gen_random_uuid()`,
            // Whole seconds: the token carries the expiry in seconds.
            expires_at: sql<Date>`date_trunc('second', now()) + make_interval(days => ${values.days})`,
          })
          .returningAll()
          .executeTakeFirstOrThrow()
        return trx
          .updateTable('shareable_links')
          .set({ code: signLink(key, row.id, new Date(row.expires_at)) })
          .where('id', '=', row.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      })
    },

    async revoke(id: number): Promise<void> {
      await db
        .updateTable('shareable_links')
        .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
        .where('id', '=', id)
        .execute()
    },
  }
}
