import { type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, ValidationFailed, type FieldErrors, invalidPk } from '../../core/errors.ts'
import { optionalWebLink } from '../../core/web-links.ts'
import { loadAreas } from '../areas/areas.service.ts'
import { trimmed } from '../../core/text-fields.ts'
import { questionVisibleSql } from '../../access/question-access.ts'
import { loadFullUsers } from '../users/users.service.ts'
import { collectionFields } from './collections.mapper.ts'
import { collectionsRepository, type CollectionRow, type CollectionValues } from './collections.repository.ts'
import type { ListedCollection } from './listed-counts.ts'
import type { Collection, CollectionChanges, CollectionFull } from './collections.schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'
import { toReducedUser } from '../users/users.mapper.ts'
import { areasRepository } from '../areas/areas.repository.ts'
import type { ViewContext } from '../../core/view-context.ts'

/** Collections for a page of rows in a fixed number of statements: owners, areas, the caller's progress (and tags). */
export async function collectionsFromRows(context: ViewContext, rows: ListedCollection[], form: 'reduced'): Promise<Collection[]>
export async function collectionsFromRows(context: ViewContext, rows: ListedCollection[], form: 'full'): Promise<CollectionFull[]>
export async function collectionsFromRows(
  context: ViewContext,
  rows: ListedCollection[],
  form: 'reduced' | 'full',
): Promise<(Collection | CollectionFull)[]> {
  if (rows.length === 0) return []
  const repository = collectionsRepository(context.db)
  const ids = rows.map((row) => row.id)
  const [users, areas, answered, tags] = await Promise.all([
    loadFullUsers(
      context,
      rows.map((row) => row.user_id),
    ),
    loadAreas(
      context.db,
      rows.map((row) => row.geo_id),
      context.urls,
    ),
    context.caller === null ? Promise.resolve(new Map<number, number>()) : repository.answeredBy(context.caller, ids),
    form === 'full' ? repository.tagsOf(ids) : Promise.resolve([]),
  ])
  return rows.map((row) => {
    const user = users.get(row.user_id)!
    const fields = collectionFields(
      row,
      { username: user.username, geo: row.geo_id === null ? undefined : areas.get(row.geo_id), answered: answered.get(row.id) },
      context.urls,
    )
    if (form === 'reduced') return { ...fields, user: toReducedUser(user) }
    return {
      ...fields,
      user,
      tags: tags.filter((tag) => tag.collection_id === row.id).map(({ collection_id: _, ...tag }) => tag),
      copied_from: row.copied_from_id,
      copied_from_url: row.copied_from_id === null ? null : context.urls.detail('question_collections', row.copied_from_id),
    }
  })
}

const DATETIME = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d:?\d\d)?)?$/

function expiryOf(value: string | null | undefined, errors: FieldErrors): Date | null | undefined {
  if (value === undefined || value === null) return value
  const text = value.trim()
  if (text === '') return null
  const date = DATETIME.test(text) ? new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || text.length === 10 ? text : `${text}Z`) : null
  if (date && !Number.isNaN(date.getTime())) return date
  errors.expire_at = ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].']
  return undefined
}

/** The writable fields of a body, checked; every field's problem is collected before one 400. */
async function collectionValues(db: Kysely<Database>, body: CollectionChanges): Promise<CollectionValues> {
  const errors: FieldErrors = {}
  const values: CollectionValues = {}
  const name = trimmed(body.name, 'name', errors)
  if (name !== undefined) values.name = name
  for (const field of ['desc', 'end_text'] as const) {
    const value = body[field]
    if (value !== undefined) values[field] = value === null ? null : value.trim()
  }
  const photo = optionalWebLink(body.photo, 'photo', errors)
  if (photo !== undefined) values.photo = photo
  const expiry = expiryOf(body.expire_at, errors)
  if (expiry !== undefined) values.expire_at = expiry
  if (body.geo !== undefined) {
    const geo = body.geo
    const exists = geo !== null && geo >= 1 && geo <= INT4_MAX && (await areasRepository(db).findById(geo)) !== undefined
    if (geo === null || exists) values.geo_id = geo
    else errors.geo = [invalidPk(geo)]
  }
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return values
}

export async function createCollection(
  db: Kysely<Database>,
  caller: Caller,
  body: CollectionChanges & { name: string },
): Promise<CollectionRow> {
  const values = await collectionValues(db, body)
  return collectionsRepository(db).insert({ ...values, name: values.name!, user_id: caller.id })
}

export async function updateCollection(db: Kysely<Database>, id: number, body: CollectionChanges): Promise<void> {
  const values = await collectionValues(db, body)
  await db.transaction().execute(async (trx) => {
    const repository = collectionsRepository(trx)
    if (!(await repository.lock(id))) throw NotFound()
    await repository.update(id, values)
  })
}

/** Items and tags go with it; answers given in it keep their answer and lose the reference. */
export async function deleteCollection(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = collectionsRepository(trx)
    if (!(await repository.lock(id))) throw NotFound()
    await repository.remove(id)
  })
}

/**
 * A copy for the caller: the fields, the items in their order (numbered again from 0) and the tags. Questions
 * the caller cannot see (others' drafts) are left out. Each step is one statement, whatever the size.
 */
export async function copyCollection(db: Kysely<Database>, caller: Caller, sourceId: number): Promise<CollectionRow> {
  return db.transaction().execute(async (trx) => {
    const repository = collectionsRepository(trx)
    const source = await repository.find(sourceId)
    if (!source) throw NotFound()
    const copy = await repository.insert({
      user_id: caller.id,
      name: source.name,
      desc: source.desc,
      end_text: source.end_text,
      photo: source.photo,
      geo_id: source.geo_id,
      expire_at: source.expire_at,
      copied_from_id: source.id,
    })
    return repository.copyContents(source.id, copy.id, questionVisibleSql(caller))
  })
}
