import type { Kysely } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { PermissionDenied, ValidationFailed, invalidPk, uniqueSet } from '../../core/errors.ts'
import type { Database } from '../../db/database.ts'
import { tagsRepository } from '../tags/tags.repository.ts'
import { collectionsRepository } from './collections.repository.ts'
import { collectionTagsRepository } from './collection-tags.repository.ts'
import type { CollectionTagCreate } from './related.schemas.ts'

/** The collection's owner (or staff) tags it, once per tag; answers the new row's id. */
export async function tagCollection(db: Kysely<Database>, caller: Caller, body: CollectionTagCreate): Promise<number> {
  const { collection: collectionId, tag: tagId } = body
  const [collection, tag] = await Promise.all([collectionsRepository(db).find(collectionId), tagsRepository(db).exists(tagId)])
  const errors: Record<string, string[]> = {}
  if (!collection) errors.collection = [invalidPk(collectionId)]
  if (!tag) errors.tag = [invalidPk(tagId)]
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  if (collection!.user_id !== caller.id && !caller.isStaff) throw PermissionDenied()
  return refusingViolations(() => collectionTagsRepository(db).insert(collectionId, tagId), {
    unique: uniqueSet('collection', 'tag'),
    missing: () => ({ collection: [invalidPk(collectionId)] }),
  })
}
