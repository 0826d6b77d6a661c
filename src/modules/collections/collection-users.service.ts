import type { Kysely } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import { fieldError, invalidPk } from '../../core/errors.ts'
import { iso } from '../../core/time.ts'
import type { ViewContext } from '../../core/view-context.ts'
import type { Database } from '../../db/database.ts'
import type { ListRequest, RowsPage } from '../../db/paging.ts'
import { reducedUsers } from '../users/users.service.ts'
import { percentage } from './collections.mapper.ts'
import { collectionsRepository } from './collections.repository.ts'
import type { ListedCollection } from './listed-counts.ts'
import { collectionUsersRepository, type CollectionUserRow } from './collection-users.repository.ts'
import type { CollectionUser, CollectionUserQuery } from './related.schemas.ts'

/** An answerer with the collection they answered, as the viewer sees it (for the question count they list). */
export type AnswererRow = CollectionUserRow & { collection: ListedCollection }

/** A page of the people who answered the collection `parent` names (required, and it must exist). */
export async function collectionUsersPage(
  db: Kysely<Database>,
  filters: CollectionUserQuery,
  viewer: Caller | null,
  list: ListRequest,
): Promise<RowsPage<AnswererRow>> {
  if (filters.parent === undefined) throw fieldError('parent', 'This field is required.')
  const collection = await collectionsRepository(db).findFor(filters.parent, viewer)
  if (!collection) throw fieldError('parent', invalidPk(filters.parent))
  const page = await collectionUsersRepository(db).page(collection.id, viewer, filters.user, list)
  return { ...page, rows: page.rows.map((row) => ({ ...row, collection })) }
}

export async function collectionUsersFromRows(context: ViewContext, rows: AnswererRow[]): Promise<CollectionUser[]> {
  const users = await reducedUsers(
    context,
    rows.map((row) => row.user_id),
  )
  return rows.map((row) => ({
    id: row.user_id,
    user_url: context.urls.detail('users', row.user_id),
    user: users.get(row.user_id)!,
    parent: row.collection.id,
    answered_count: row.answered_count,
    answered: percentage(row.answered_count, row.collection.listed_questions),
    last_answered_at: iso(row.last_answered_at),
  }))
}
